-- Apache Superset's catalog, metadata and chart queries against a
-- PostgreSQL database, over schema.sql: its PostgreSQL engine spec's own
-- SQL (superset/db_engine_specs/postgres.py), and what it asks
-- SQLAlchemy's PostgreSQL dialect inspector for that the captured
-- SQLAlchemy corpus (replay_captured.sql) does not already hold, as
-- SQLAlchemy 1.4 sends it through psycopg2 (parameters interpolated).
-- Format: see replayQuery in replay_test.go.

-- client: superset (get_catalog_names: the databases of the catalog picker)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.get_catalog_names)
-- compare: columns
SELECT datname FROM pg_database
WHERE datistemplate = false;
;;

-- client: superset (get_table_names: foreign tables beside the tables)
-- from: sqlalchemy/sqlalchemy lib/sqlalchemy/dialects/postgresql/base.py (PGDialect._get_foreign_table_names, 1.4), called by apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.get_table_names)
-- compare
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'f'
;;

-- client: superset (get_view_names: plain and materialized views)
-- from: sqlalchemy/sqlalchemy lib/sqlalchemy/dialects/postgresql/base.py (PGDialect.get_view_names, 1.4, include plain and materialized), called by apache/superset superset/db_engine_specs/base.py (BaseEngineSpec.get_view_names)
-- compare
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm')
;;

-- client: superset (get_prequeries: SQL Lab's schema dropdown)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.get_prequeries, schema "public")
-- compare
set search_path = "public"
;;

-- client: superset (get_cancel_query_id)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.get_cancel_query_id)
-- compare: columns
SELECT pg_backend_pid()
;;

-- client: superset (cancel_query, of a backend that is gone)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.cancel_query, cancel_query_id 0)
-- compare
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid='0'
;;

-- client: superset (estimate_statement_cost: SQL Lab's cost estimate; it reads cost=a..b from the first line when there is one)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresEngineSpec.estimate_statement_cost)
-- compare: columns
EXPLAIN SELECT * FROM orders WHERE amount > 100
;;

-- client: superset (select_star: a dataset's data preview)
-- from: apache/superset superset/db_engine_specs/base.py (BaseEngineSpec.select_star, limit 100, as SQLAlchemy compiles it)
-- compare
SELECT * 
FROM public.customers
 LIMIT 100
;;

-- client: superset (a bar chart by week: the WEEK time grain, count metric, row limit)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresBaseEngineSpec._time_grain_expressions, TimeGrain.WEEK), as superset/models/helpers.py (get_sqla_query) builds the query
-- compare
SELECT DATE_TRUNC('week', placed) AS placed, count(*) AS count 
FROM public.orders GROUP BY DATE_TRUNC('week', placed) ORDER BY count DESC 
 LIMIT 10000
;;

-- client: superset (a time-range filter on a date and a timestamp column)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresBaseEngineSpec.convert_dttm, Date and DateTime)
-- compare
SELECT customer_id, sum(amount) AS "SUM(amount)" 
FROM public.orders 
WHERE placed >= TO_DATE('2024-01-01', 'YYYY-MM-DD') AND placed::timestamp < TO_TIMESTAMP('2024-03-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US') GROUP BY customer_id ORDER BY "SUM(amount)" DESC 
 LIMIT 10000
;;

-- client: superset (an epoch-seconds column as a time column)
-- from: apache/superset superset/db_engine_specs/postgres.py (PostgresBaseEngineSpec.epoch_to_dttm)
-- compare
SELECT DATE_TRUNC('month', (timestamp 'epoch' + e * interval '1 second')) AS t, count(*) AS count 
FROM (VALUES (1704067200), (1706745600), (1706832000)) AS v(e) GROUP BY DATE_TRUNC('month', (timestamp 'epoch' + e * interval '1 second'))
;;

-- client: superset (the table comment of a dataset: get_table_comment)
-- from: sqlalchemy/sqlalchemy lib/sqlalchemy/dialects/postgresql/base.py (PGDialect.get_table_comment, 1.4), called by apache/superset superset/db_engine_specs/base.py (BaseEngineSpec.get_table_comment)
-- compare
SELECT
    pgd.description as table_comment
FROM
    pg_catalog.pg_description pgd
WHERE
    pgd.objsubid = 0 AND
    pgd.objoid = 'public.customers'::regclass
;;

-- client: superset (has_table of a schema-qualified dataset, before creating or syncing it)
-- from: sqlalchemy/sqlalchemy lib/sqlalchemy/dialects/postgresql/base.py (PGDialect.has_table with a schema, 1.4), called by apache/superset superset/models/core.py (Database.has_table)
-- compare
select relname from pg_class c join pg_namespace n on n.oid=c.relnamespace where n.nspname='public' and relname='customers'
;;

-- client: superset (a virtual dataset's columns: its SQL wrapped and run for one row)
-- from: apache/superset superset/connectors/sqla/utils.py (get_virtual_table_metadata, as SQLAlchemy compiles the wrapper)
-- compare: columns
SELECT * 
FROM (SELECT c.name, sum(o.amount) AS spent FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name) AS virtual_table 
 LIMIT 1
;;

-- client: superset (SQL Lab: the user's query under the row limit it adds)
-- from: apache/superset superset/db_engine_specs/base.py (BaseEngineSpec.apply_limit_to_sql, LimitMethod.FORCE_LIMIT)
-- compare
SELECT placed, amount FROM orders WHERE tags IS NOT NULL ORDER BY placed
LIMIT 1001
;;
