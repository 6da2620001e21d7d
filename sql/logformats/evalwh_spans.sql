-- evalwh JSONL, each record parsed once into typed fields (json_transform); one row per line
-- of log_raw. The three evalwh_* SELECTs read these fields, not the JSON text.
SELECT
    file,
    line,
    json_transform(record, '{
        "request_id": "VARCHAR", "session_id": "VARCHAR", "ts": "VARCHAR", "question": "VARCHAR",
        "answer": "VARCHAR", "model": "VARCHAR", "finish_reason": "VARCHAR", "refused": "VARCHAR",
        "metadata": "JSON",
        "retrieved": [{"chunk_id": "VARCHAR", "score": "VARCHAR", "content": "VARCHAR"}],
        "cited": [{"chunk_id": "VARCHAR", "quote": "VARCHAR"}]
    }') AS r
FROM log_raw
