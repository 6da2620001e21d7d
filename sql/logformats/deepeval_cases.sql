-- DeepEval test cases, one row per case: a golden a record (EvaluationDataset.save_as as JSON,
-- whose array's elements are read as records, as JSON lines or as CSV), or the test results of
-- evaluate() (its result's model_dump: {"test_results": [...]}; the .latest_test_run.json it leaves:
-- {"testRunData": {"testCases": [...]}}, camelCase), several cases a record. A list (retrieval_context,
-- context) is a JSON list, or, as DeepEval's JSON lines and CSV write it, its items joined by "|";
-- metadata is additional_metadata (a golden's: an object, or its JSON text in CSV) or metadata (a
-- result's).
WITH listed AS (
    SELECT file, line, record,
           json_transform(record, '{"test_results": ["JSON"]}').test_results                AS results,
           json_transform(record, '{"testRunData": {"testCases": ["JSON"]}}').testRunData.testCases AS run_cases,
           json_transform(record, '{"testCases": ["JSON"]}').testCases                      AS bare_cases
    FROM log_raw
),
nested AS (
    SELECT file, line, coalesce(results, run_cases, bare_cases) AS cases
    FROM listed
    WHERE coalesce(results, run_cases, bare_cases) IS NOT NULL
),
cases AS (
    SELECT file, line, 1 AS case_no, record AS c
    FROM listed
    WHERE coalesce(results, run_cases, bare_cases) IS NULL
    UNION ALL
    -- each case with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, x.i AS case_no, x.c
    FROM (SELECT file, line, unnest(list_transform(range(1, array_length(cases) + 1),
                                                   lambda i: struct_pack(c := cases[i], i := i))) AS x
          FROM nested) AS n
),
fields AS (
    SELECT
        file, line, case_no, c,
        json_extract_string(c, '$.input')                                                              AS input,
        coalesce(json_extract_string(c, '$.actual_output'), json_extract_string(c, '$.actualOutput'))   AS actual_output,
        coalesce(json_extract_string(c, '$.expected_output'), json_extract_string(c, '$.expectedOutput')) AS expected_output,
        json_extract_string(c, '$.name')                                                               AS name,
        coalesce(json_transform(c, '{"retrieval_context": ["VARCHAR"]}').retrieval_context,
                 json_transform(c, '{"retrievalContext": ["VARCHAR"]}').retrievalContext,
                 string_split(json_extract_string(c, '$.retrieval_context'), '|'))                    AS retrieval_context,
        coalesce(json_transform(c, '{"context": ["VARCHAR"]}').context,
                 string_split(json_extract_string(c, '$.context'), '|'))                              AS context,
        coalesce(json_extract_string(c, '$.additional_metadata'), json_extract_string(c, '$.metadata'),
                 json_extract_string(c, '$.additionalMetadata'))                                      AS metadata_text,
        coalesce(json_extract(c, '$.metrics_data'), json_extract(c, '$.metricsData'))                  AS metrics_data,
        json_extract_string(c, '$.success')                                                           AS success
    FROM cases
)
SELECT
    *,
    CASE WHEN json_valid(metadata_text) AND starts_with(ltrim(metadata_text), '{')
         THEN CAST(metadata_text AS JSON) END                                                          AS metadata,
    'deepeval-' || md5(concat_ws(chr(30), coalesce(input, chr(0)), coalesce(actual_output, chr(0)),
        coalesce(expected_output, chr(0)), coalesce(array_to_string(retrieval_context, chr(31)), chr(0)),
        coalesce(array_to_string(context, chr(31)), chr(0))))                                          AS request_id
FROM fields
