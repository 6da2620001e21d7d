"""A small annotated run folder (``evalwh init --example DIR``) to edit into one's own.

Four chunks of an HR handbook, three questions (one that must be refused), the reader's answers,
and four drafted claims covering every status but UNCITED: loading it shows each part of a report.
The README beside the files says what each column is; the JSON Schemas of the files are written
beside them (``schemas/``), generated from the loader's own specs. ``next/`` holds a second run of
the same dataset that fixes a question and a claim and breaks two questions and a claim, so that
loading both shows what a comparison, a report's "What got worse" and a gate say.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalwh.errors import UsageError
from evalwh.loader.input_schema import all_schemas

FILES: dict[str, str] = {
    "chunks.csv": """chunk_id,doc_id,text
leave-1,handbook,Full-time staff receive 25 days of paid annual leave per year.
leave-2,handbook,Up to 5 unused days may be carried over to the next year.
parental-1,handbook,Parental leave is 16 weeks at full pay.
expenses-1,handbook,Expenses over 50 euros need a receipt.
""",
    "questions.csv": """question_id,question,expected,gold,gold_chunk_id,acceptable_answers
q1,How many days of annual leave do full-time staff get?,answer,25 days of paid annual leave,leave-1,25 days|twenty-five days
q2,How long is parental leave?,answer,16 weeks at full pay,parental-1,16 weeks
q3,What is the guest wifi password?,refuse,,,
""",
    "retrievals.csv": """question_id,chunk_id,rank,score
q1,leave-1,1,0.91
q1,leave-2,2,0.55
q2,parental-1,1,0.88
q3,expenses-1,1,0.12
""",
    "responses.csv": """question_id,output
q1,"Answer: 25 days
Sources: leave-1"
q2,"Answer: 12 weeks
Sources: parental-1"
q3,"Answer: NOT IN HANDBOOK
Sources: none"
""",
    "claims.csv": """claim_id,question_id,text,quote
c1,q1,Full-time staff get 25 days of annual leave.,25 days of paid annual leave
c2,q2,Parental leave is 12 weeks.,Parental leave is 16 weeks
c3,q1,Unused days can be carried over.,unused days may be carried over to the next month
c4,q1,Leave requests go to HR.,requests go to HR
""",
    "citations.csv": """claim_id,chunk_id
c1,leave-1
c2,parental-1
c3,leave-2
c4,hr-9
""",
    "run.toml": """# Settings of this run; every key is optional (docs/loading.md lists them all).
[run]
dataset = "hr-handbook"        # runs of one dataset are compared with each other

[retrieval]
top_k = 3                      # only used when there is no retrievals.csv

[reader]
format = "two_line"            # responses are "Answer: ..." then "Sources: id, id"
abstain_marker = "NOT IN HANDBOOK"
""",
    "README.md": """# An example run

Edit these files into your own run, then `evalwh load <this folder>`.

- `chunks.csv`: chunk_id, text (doc_id optional): the passages the model may cite.
- `claims.csv`: claim_id, text, quote (question_id optional): what the model drafted, each with a
  verbatim quote from a chunk it cites. c1 is SUPPORTED, c2 NUMBER_MISMATCH (12 is not in its
  quote), c3 UNSUPPORTED (its quote is not in leave-2), c4 DANGLING (hr-9 is no chunk).
- `citations.csv`: claim_id, chunk_id: the chunks each claim cites, in order.
- `questions.csv`: question_id, question, expected (answer, refuse or flag_premise), gold,
  gold_chunk_id, acceptable_answers (variants separated by |).
- `retrievals.csv`: question_id, chunk_id, rank, score: what your retriever returned (without it,
  the built-in retriever runs at load).
- `responses.csv`: question_id, output: the reader's answer in the format of run.toml's [reader].
- `schemas/`: a JSON Schema for one record of each file.
- `next/`: the next run of this dataset. Load it after this one (`evalwh load next`) and
  `evalwh report` leads with what got worse: q3, which must be refused, is answered; q1 says 20
  days; c1 says 20 days where its quote says 25. q2 and c2 are fixed.
""",
}
# the next run: what differs from FILES (the same chunks, questions, retrievals and settings)
NEXT_FILES: dict[str, str] = {
    "responses.csv": """question_id,output
q1,"Answer: 20 days
Sources: leave-1"
q2,"Answer: 16 weeks
Sources: parental-1"
q3,"Answer: The password is on the noticeboard.
Sources: expenses-1"
""",
    "claims.csv": """claim_id,question_id,text,quote
c1,q1,Full-time staff get 20 days of annual leave.,25 days of paid annual leave
c2,q2,Parental leave is 16 weeks.,Parental leave is 16 weeks
c3,q1,Unused days can be carried over.,unused days may be carried over to the next month
c4,q1,Leave requests go to HR.,requests go to HR
""",
}


def write_example(directory: Path) -> list[Path]:
    """Write the example run into ``directory`` (new or empty) and its next run into ``directory/next``;
    returns the files written."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"{directory}: not an empty folder (the example is written into a new or empty one)")
    written = []
    for name, text in FILES.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    for name, text in {**FILES, **NEXT_FILES}.items():
        if name != "README.md":
            path = directory / "next" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    for kind, schema in all_schemas().items():
        path = directory / "schemas" / f"{kind}.schema.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written
