-- DeepEval: one row per record that holds no test case (file, line, error): a golden has an input;
-- a results record lists its cases under test_results, testRunData.testCases or testCases. The
-- texts of a case are strings (DuckDB only: Spark imports do not check).
WITH cases AS (
    SELECT file, line,
           json_type(record, '$.test_results') = 'ARRAY' OR json_type(record, '$.testRunData.testCases') = 'ARRAY'
               OR json_type(record, '$.testCases') = 'ARRAY'                            AS is_results,
           json_type(record, ['$.input', '$.actual_output', '$.expected_output', '$.actualOutput',
                              '$.expectedOutput'])                                      AS types
    FROM log_raw
),
errors AS (
    SELECT file, line,
           CASE
               WHEN NOT coalesce(is_results, FALSE) AND coalesce(types[1], 'NULL') = 'NULL'
                   THEN 'not a deepeval test case: it has no input (nor test_results or testRunData.testCases)'
               WHEN list_bool_or(list_transform(types, lambda t: coalesce(t, 'NULL') NOT IN ('VARCHAR', 'NULL')))
                   THEN 'input, actual_output and expected_output must be strings'
           END AS error
    FROM cases
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
