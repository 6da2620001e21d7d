-- One row per question that expects an answer and has a response: SQuAD exact match and F1
-- of the answer against the question's acceptable answers (the best over them).
-- Tokens were normalised at load (squad_normalize: lower-case, Unicode punctuation and
-- symbols deleted where SQuAD deletes ASCII punctuation only, so answers in any script
-- normalise alike; a/an/the replaced by a space; white space squished).
-- Only an answer is scored: every other action (refuse, flag_premise, parse_failure) is an
-- empty prediction, EM 0 and F1 0. NULL when the question lists no acceptable answer.
--   em per variant = the token lists are equal and not empty
--   f1 per variant = 2 * common / (predicted tokens + reference tokens), common counted as a
--   multiset; 0 when either side has no tokens (the method's rule, so a variant that
--   normalises to nothing scores 0)
-- lesson_exact_match and lesson_f1 are the retrieve-then-read lesson's best_reference_scores as
-- its code computes them: every variant but an empty one is scored (a blank one too), and the
-- prediction (the answer, or nothing for any other action) matches a variant exactly when their
-- normal forms are identical, so an empty prediction matches a variant that normalises to
-- nothing (EM 1, where exact_match says 0). NULL when the question lists no variant at all.
WITH scored AS (
    SELECT q.run_id, q.question_id, o.action, q.acceptable_tokens, array_length(q.acceptable_answers) AS answers,
           CASE WHEN o.action = 'answer' THEN r.answer_tokens ELSE CAST([] AS VARCHAR[]) END
               AS prediction
    FROM questions AS q
    JOIN responses AS r ON r.run_id = q.run_id AND r.question_id = q.question_id
    JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
    WHERE q.expected = 'answer'
),
variants AS (
    -- each variant by its position among the question's (equal variants score alike, and only the best
    -- counts): an integer key, where the variant's token list as a key costs a third more
    SELECT run_id, question_id, variant, acceptable_tokens[variant] AS reference
    FROM (SELECT run_id, question_id, acceptable_tokens,
                 unnest(range(1, array_length(acceptable_tokens) + 1)) AS variant
          FROM scored)
),
prediction_tokens AS (
    SELECT run_id, question_id, unnest(prediction) AS token
    FROM scored
),
prediction_counts AS (
    SELECT run_id, question_id, token, count(*) AS n
    FROM prediction_tokens
    GROUP BY run_id, question_id, token
),
reference_tokens AS (
    SELECT run_id, question_id, variant, unnest(reference) AS token
    FROM variants
),
reference_counts AS (
    SELECT run_id, question_id, variant, token, count(*) AS n
    FROM reference_tokens
    GROUP BY run_id, question_id, variant, token
),
common AS (
    SELECT rc.run_id, rc.question_id, rc.variant, sum(least(rc.n, pc.n)) AS common
    FROM reference_counts AS rc
    JOIN prediction_counts AS pc
        ON pc.run_id = rc.run_id AND pc.question_id = rc.question_id AND pc.token = rc.token
    GROUP BY rc.run_id, rc.question_id, rc.variant
),
per_variant AS (
    SELECT
        v.run_id,
        v.question_id,
        CASE WHEN array_length(v.reference) > 0 AND v.reference = s.prediction THEN 1 ELSE 0 END AS em,
        CASE WHEN v.reference = s.prediction THEN 1 ELSE 0 END AS lesson_em,
        CASE
            WHEN array_length(s.prediction) = 0 OR array_length(v.reference) = 0 THEN 0.0
            ELSE CAST(2 AS DOUBLE) * COALESCE(c.common, 0)
                 / (array_length(s.prediction) + array_length(v.reference))
        END AS f1
    FROM variants AS v
    JOIN scored AS s ON s.run_id = v.run_id AND s.question_id = v.question_id
    LEFT JOIN common AS c
        ON c.run_id = v.run_id AND c.question_id = v.question_id AND c.variant = v.variant
),
best AS (
    SELECT run_id, question_id, max(em) AS em, max(lesson_em) AS lesson_em, max(f1) AS f1
    FROM per_variant
    GROUP BY run_id, question_id
)
SELECT
    s.run_id,
    s.question_id,
    -- a question whose variants are all blank has no acceptable answer: NULL (the lesson scores it)
    CASE WHEN s.answers = 0 OR b.em IS NULL THEN NULL WHEN s.action <> 'answer' THEN 0 ELSE b.em END AS exact_match,
    CASE WHEN s.answers = 0 OR b.f1 IS NULL THEN NULL WHEN s.action <> 'answer' THEN 0.0 ELSE b.f1 END AS f1,
    b.lesson_em                                                                                      AS lesson_exact_match,
    b.f1                                                                                             AS lesson_f1
FROM scored AS s
LEFT JOIN best AS b
    ON b.run_id = s.run_id AND b.question_id = s.question_id
