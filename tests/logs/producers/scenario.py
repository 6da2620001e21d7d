"""The production scenario every producer fixture encodes: four requests over the chapter-3 chunk store.

``generate.py`` hands these requests to each producer's own library (the "model" is a function that
returns the answer written here; no model is called), and ``tests/test_log_producers.py`` compares
what evalwh stores with what is written here, field by field. One request is supported, one quotes
its chunk falsely, one cites a chunk the store lacks and one refuses.

Standard library only: the tests import it without the producer libraries.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

UTC = dt.timezone.utc
MODEL = "stub-rag-1"  # what the stub model calls itself
REFUSAL = "I cannot answer that from the documents."


@dataclass(frozen=True)
class Doc:
    """A retrieved chunk, in rank order; ``text`` is the passage the model was shown."""

    chunk_id: str
    score: float
    text: str


@dataclass(frozen=True)
class Cite:
    """A citation: the 1-based rank of the cited document and the quote the model gave for it."""

    rank: int
    quote: str


@dataclass(frozen=True)
class Request:
    """One production request."""

    key: str  # a short name: r1 .. r4
    number: int  # 1 .. 4, from which the producers' ids are made
    session: str
    ts: dt.datetime
    question: str
    docs: tuple[Doc, ...]
    answer: str  # with [n] markers where the format cites by marker
    cites: tuple[Cite, ...] = field(default=())
    refused: bool = False
    reference: str | None = None  # the expected answer, for the evaluation formats
    finish_reason: str = "stop"

    @property
    def plain_answer(self) -> str:
        """The answer without its [n] markers (what a format with provider citations writes)."""
        text = self.answer
        for n in range(1, len(self.docs) + 1):
            text = text.replace(f" [{n}]", "")
        return text


HANDBOOK_1 = ("Loan laptops are issued by the equipment desk. A loan laptop must be returned within 14 days of the "
              "issue date. Staff who need a laptop for longer must ask")
HANDBOOK_2 = ("date. Staff who need a laptop for longer must ask their manager to approve an extension. Extensions "
              "are recorded in the asset register. A laptop that is lost must be")
NETWORK_1 = ("Guest wifi is available in every meeting room. The guest network password changes on the first Monday "
             "of each month. Staff devices must use the corporate network instead of the")
NETWORK_2 = ("Staff devices must use the corporate network instead of the guest network. Printers are only reachable "
             "from the corporate network. Visitors who need a printer should ask reception, who will")
EXPENSES_1 = ("Expense claims are submitted through the finance portal. Claims below 50 dollars do not need a receipt. "
              "Claims of 50 dollars or more must include a receipt image. Receipts older")
# a chunk the store lacks: production cites it, the evaluation's chunk store has no such id
EXPENSES_9 = "Claims below 50 dollars do not need a receipt."
NETWORK_3 = ("Visitors who need a printer should ask reception, who will print for them. Remote staff reach the "
             "corporate network through the VPN.")

REQUESTS: tuple[Request, ...] = (
    Request(
        key="r1", number=1, session="session-a", ts=dt.datetime(2026, 12, 1, 9, 0, 0, tzinfo=UTC),
        question="How many days can a loan laptop be kept before it must be returned?",
        docs=(Doc("handbook-1", 0.91, HANDBOOK_1), Doc("handbook-2", 0.55, HANDBOOK_2)),
        answer="A loan laptop must be returned within 14 days of the issue date [1].",
        cites=(Cite(1, "A loan laptop must be returned within 14 days of the issue date."),),
        reference="Within 14 days of the issue date.",
    ),
    Request(
        key="r2", number=2, session="session-a", ts=dt.datetime(2026, 12, 1, 9, 5, 0, tzinfo=UTC),
        question="When does the guest network password change?",
        docs=(Doc("network-1", 0.88, NETWORK_1), Doc("network-2", 0.41, NETWORK_2)),
        answer="The guest network password changes every Friday [1].",
        cites=(Cite(1, "The guest network password changes every Friday."),),  # not what network-1 says
        reference="On the first Monday of each month.",
    ),
    Request(
        key="r3", number=3, session="session-b", ts=dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC),
        question="Do I need a receipt for a 30 dollar expense claim?",
        docs=(Doc("expenses-9", 0.77, EXPENSES_9), Doc("expenses-1", 0.52, EXPENSES_1)),
        answer="No, claims below 50 dollars do not need a receipt [1].",
        cites=(Cite(1, "Claims below 50 dollars do not need a receipt."),),  # expenses-9 is not in the store
        reference="No: claims below 50 dollars need no receipt.",
    ),
    Request(
        key="r4", number=4, session="session-b", ts=dt.datetime(2026, 12, 1, 10, 30, 0, tzinfo=UTC),
        question="Can visitors park in the car park overnight?",
        docs=(Doc("network-3", 0.12, NETWORK_3),),
        answer=REFUSAL, refused=True, reference=REFUSAL,
    ),
)


def by_key(key: str) -> Request:
    """The request named ``key``."""
    return next(r for r in REQUESTS if r.key == key)


def trace_id(request: Request) -> int:
    """The OpenTelemetry trace id the fixtures give ``request`` (fixed, so regenerating changes nothing)."""
    return 0x5EED0000000000000000000000000000 + request.number


def trace_hex(request: Request) -> str:
    """The trace id as OTLP JSON writes it, and as evalwh stores it: 32 lower-case hex digits."""
    return f"{trace_id(request):032x}"


def nanos(moment: dt.datetime) -> int:
    """A time as OpenTelemetry's nanoseconds since the epoch."""
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
