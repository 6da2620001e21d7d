# make demo: set up .venv with evalwh alone, load the bundled chapter-3 seed (cases.tsv) and two runs of the
#            handbook, the second worse; write the latest run's HTML and Markdown reports under out/ and
#            gate it, naming what got worse
# make test: add the test extras to .venv and run the test suite but the tests marked slow
# make test-slow: the tests marked slow (Spark, the 1M-claim memory test, the kill loops)
# make test-oldest: the core suite (load, views, report, diff, check, logs import) with DuckDB 1.4.4, the
#            oldest release evalwh supports (in .venv-duckdb-oldest), then the old-client check: every view
#            of a warehouse the newest DuckDB wrote, queried by DuckDB 1.4.4 without evalwh
# make test-lake: the lake tests (tests/test_lake.py, tests/test_team_workflow.py, tests/test_copy.py) with
#            the lake extra (DuckDB 1.4.4 and its official extension binaries, in .venv-lake), against a
#            throwaway Postgres server .ci/with-postgres starts (Debian's postgresql package)
# make lint: ruff, mypy and pyright over cli/, tests/, bench/ and docs/generate.py, with the spark extra installed
#            as CI has it, so pyspark's own types are checked (every evalwh import resolved); the package under
#            mypy --strict and pyright's standard mode
# make docs: regenerate docs/reference/ (the command and warehouse references) from the code
# make test-producers: the log producers' own libraries (the logs extra, in .venv-logs) write every producer
#            fixture afresh, and tests/test_log_producers.py checks what evalwh stores from them
# make fixtures: rewrite the committed producer fixtures in tests/logs/producers with those libraries
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO_STAMP := $(VENV)/.installed-demo
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
LINT_STAMP := $(VENV)/.installed-lint

.PHONY: demo test test-slow test-oldest test-lake bench-lake test-producers fixtures lint docs screenshot bench bench-large bench-logs bench-spark clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(DEMO_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $(DEMO_STAMP)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP) $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/evalwh --db evalwh.duckdb seed chapter3
	$(BIN)/evalwh --db evalwh.duckdb cases -r chapter3 -o cases.tsv
	$(BIN)/evalwh --db evalwh.duckdb seed handbook
	$(BIN)/evalwh --db evalwh.duckdb seed handbook-next
	$(BIN)/evalwh --db evalwh.duckdb materialize
	$(BIN)/evalwh --db evalwh.duckdb report --format html -o out/report.html
	$(BIN)/evalwh --db evalwh.duckdb report --format md -o out/report.md
	$(BIN)/evalwh --db evalwh.duckdb check --max-regressions questions=0 || true
	@echo "handbook-next against handbook: see \"What got worse\" at the top of out/report.html (open it in a"
	@echo "browser) or out/report.md. The chapter's evidence lines: $(BIN)/evalwh --db evalwh.duckdb evidence -r chapter3"

test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

# the tests marked slow (every view on Spark, the 1M-claim load in bounded memory, the kill loops)
test-slow: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,spark]'
	$(BIN)/python -m pytest -m slow

OLDEST_DUCKDB := 1.4.4
OLDEST_VENV := .venv-duckdb-oldest
OLDEST_STAMP := $(OLDEST_VENV)/.installed
CORE_TESTS := tests/test_views.py tests/test_method_rules.py tests/test_axes.py tests/test_native_text.py \
	tests/test_textnorm.py tests/test_retrieve_read.py tests/test_load_errors.py tests/test_input_schema.py \
	tests/test_datasets.py tests/test_corpus.py tests/test_schema_version.py tests/test_history.py \
	tests/test_report.py tests/test_changes.py tests/test_diff_check.py tests/test_gates.py tests/test_logs.py \
	tests/test_log_checks.py tests/test_sql_security.py tests/test_cli.py tests/test_baselines.py

$(OLDEST_STAMP): pyproject.toml
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST_VENV)/bin/python -m pip install --quiet -e '.[test]' 'duckdb==$(OLDEST_DUCKDB)'
	touch $(OLDEST_STAMP)

test-oldest: $(OLDEST_STAMP) $(DEMO_STAMP)
	$(OLDEST_VENV)/bin/python -c "import duckdb; assert duckdb.__version__ == '$(OLDEST_DUCKDB)', duckdb.__version__"
	$(OLDEST_VENV)/bin/python -m pytest -m "not slow" -p no:cacheprovider $(CORE_TESTS)
	scratch=$$(mktemp -d) && for seed in chapter3 handbook three-axis; do \
		$(BIN)/evalwh --db $$scratch/seeds.duckdb -q seed $$seed || exit 1; done && \
		$(BIN)/evalwh --db $$scratch/seeds.duckdb -q materialize && \
		$(OLDEST_VENV)/bin/python .ci/old_duckdb.py $$scratch/seeds.duckdb && rm -rf $$scratch

LOGS_VENV := .venv-logs
LOGS_STAMP := $(LOGS_VENV)/.installed

$(LOGS_STAMP): pyproject.toml
	$(PYTHON) -m venv $(LOGS_VENV)
	$(LOGS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOGS_VENV)/bin/python -m pip install --quiet -e '.[test,logs]'
	touch $(LOGS_STAMP)

test-producers: $(LOGS_STAMP)
	$(LOGS_VENV)/bin/python -m pytest -p no:cacheprovider tests/test_log_producers.py

fixtures: $(LOGS_STAMP)
	$(LOGS_VENV)/bin/python -m tests.logs.producers.generate

$(LINT_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,spark,lint]'
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(BIN)/ruff check cli tests bench docs
	$(BIN)/mypy
	$(BIN)/mypy --strict cli/evalwh
	$(BIN)/pyright cli tests docs

docs: $(DEMO_STAMP)
	$(BIN)/python docs/generate.py

# docs/report.png, the README's picture of the demo's report (needs chromium)
screenshot: demo
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1000 \
		--screenshot=docs/report.png out/report.html

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# every benchmark, each side by side with its reference where it has one
bench: $(BENCH_STAMP)
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/claims.py
	$(BIN)/python bench/metrics_store.py
	$(BIN)/python bench/same_results.py
	$(BIN)/python bench/read_commands.py
	$(BIN)/python bench/squad.py
	$(BIN)/python bench/tfidf.py
	$(BIN)/python bench/report_100k.py
	$(BIN)/python bench/logs_1m.py
	$(BIN)/python bench/export.py
	$(BIN)/python bench/history.py

# 10,000,000 claims and 10,000,000 log requests: peak memory bounded by --memory-limit (about 10 minutes,
# 6 GB of disk under the temporary folder)
bench-large: $(BENCH_STAMP)
	$(BIN)/python bench/large.py

bench-logs: $(STAMP)
	$(BIN)/python bench/logs_1m.py

# DuckDB and local Spark computing every view of a 1,000,000-claim run (needs Java)
bench-spark: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,spark]'
	$(BIN)/python bench/spark_views.py

clean:
	rm -rf $(VENV) $(LOGS_VENV) $(LAKE_VENV) evalwh.duckdb evalwh.duckdb.wal cases.tsv out

LAKE_VENV := .venv-lake
LAKE_STAMP := $(LAKE_VENV)/.installed
LAKE_TESTS := tests/test_lake.py tests/test_team_workflow.py tests/test_copy.py tests/test_baselines.py

$(LAKE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(LAKE_VENV)
	$(LAKE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LAKE_VENV)/bin/python -m pip install --quiet -e '.[test,lake]'
	touch $(LAKE_STAMP)

test-lake: $(LAKE_STAMP)
	EVALWH_TEST_LAKE=required .ci/with-postgres $(LAKE_VENV)/bin/python -m pytest -p no:cacheprovider $(LAKE_TESTS)

# a Postgres-catalog lake beside a file: 8 concurrent loads and 4 imports, a 1M-claim load, a query as it grows
bench-lake: $(LAKE_STAMP)
	.ci/with-postgres $(LAKE_VENV)/bin/python bench/lake.py
	.ci/with-postgres $(LAKE_VENV)/bin/python bench/history.py 10000 --lake
