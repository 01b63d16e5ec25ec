-- The catalog queries psql 15's tab completion sent to PostgreSQL 15 over
-- schema.sql, captured through queryProxy while typing each line of
-- tabcomplete_inputs.txt followed by TAB TAB into an interactive psql, by
-- go test ./tests/clients -run TestCaptureTabCompletion -capture
-- The client line names what was typed. TestReplay runs every one on
-- Eddy: each must run and return PostgreSQL's columns; "-- compare" ones
-- must return PostgreSQL's results (OID columns masked, rows sorted).

-- client: psql 15 tab completion: SELECT * FROM
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'c%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'c%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'customer%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'customer%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM pg_c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'pg\_c%' AND pg_catalog.pg_table_is_visible(c.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'pg\_c%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM pg_catalog.pg_c
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'pg\_c%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM customers WHERE
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'customers' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM public.customers WHERE
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c, pg_catalog.pg_namespace nr WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'customers' AND c.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: SELECT * FROM customers TABLESAMPLE
SELECT proname    FROM pg_catalog.pg_proc   WHERE prorettype = 'pg_catalog.tsm_handler'::pg_catalog.regtype AND         proargtypes[0] = 'pg_catalog.internal'::pg_catalog.regtype AND         proname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: INSERT INTO
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'f', 'v', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: TRUNCATE
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'f', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: COPY
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: VACUUM
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'p', 'm') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ANALYZE
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'p', 'm', 'f') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: CLUSTER customers USING
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid AND (c2.relname) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: CLUSTER customers USING
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid AND (c2.relname) LIKE 'customers\_%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: REINDEX INDEX
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('i', 'I') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: REINDEX SCHEMA
SELECT nspname FROM pg_catalog.pg_namespace  WHERE nspname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: REINDEX DATABASE
SELECT datname FROM pg_catalog.pg_database  WHERE datname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: REFRESH MATERIALIZED VIEW
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('m') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1 WHERE con.conrelid=c1.oid AND (con.conname) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1 WHERE con.conrelid=c1.oid AND (con.conname) LIKE 'customers\_%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers VALIDATE CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1 WHERE con.conrelid=c1.oid and not con.convalidated AND (con.conname) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers DETACH PARTITION
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_inherits i WHERE c1.oid=i.inhparent and i.inhrelid=c2.oid and c2.relispartition AND (c2.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c2.oid) AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers ENABLE TRIGGER
-- compare
SELECT t.tgname, NULL::pg_catalog.text FROM pg_catalog.pg_trigger t, pg_catalog.pg_class c1 WHERE t.tgrelid=c1.oid and not t.tgisinternal AND (t.tgname) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers DISABLE RULE
-- compare
SELECT r.rulename, NULL::pg_catalog.text FROM pg_catalog.pg_rewrite r, pg_catalog.pg_class c1 WHERE r.ev_class=c1.oid AND (r.rulename) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers ALTER COLUMN id TYPE
SELECT t.typname, NULL::pg_catalog.text FROM pg_catalog.pg_type t WHERE (t.typrelid = 0  OR (SELECT c.relkind = 'c'     FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid)) AND t.typname !~ '^_' AND (t.typname) LIKE '%' AND pg_catalog.pg_type_is_visible(t.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers SET TABLESPACE
-- compare
SELECT spcname FROM pg_catalog.pg_tablespace  WHERE spcname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers SET TABLESPACE
-- compare
SELECT spcname FROM pg_catalog.pg_tablespace  WHERE spcname LIKE 'pg\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers OWNER TO
SELECT rolname    FROM pg_catalog.pg_roles   WHERE rolname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers ADD PRIMARY KEY USING INDEX
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid and i.indisunique AND (c2.relname) LIKE '%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE customers ADD PRIMARY KEY USING INDEX
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid and i.indisunique AND (c2.relname) LIKE 'customers\_%' AND c1.relname = 'customers' AND pg_catalog.pg_table_is_visible(c1.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER INDEX orders_placed_idx ALTER COLUMN
-- compare
SELECT a.attnum::pg_catalog.text, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attnum::pg_catalog.text) LIKE '%' AND c.relname = 'orders_placed_idx' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER INDEX orders_placed_idx DEPENDS ON EXTENSION
SELECT extname    FROM pg_catalog.pg_extension   WHERE extname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER VIEW
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('v') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER VIEW big_orders ALTER COLUMN
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'big_orders' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER MATERIALIZED VIEW customer_totals ALTER COLUMN
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'customer_totals' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER SEQUENCE
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('S') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FOREIGN TABLE
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('f') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FOREIGN DATA WRAPPER
-- compare
SELECT fdwname    FROM pg_catalog.pg_foreign_data_wrapper   WHERE fdwname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER SERVER
-- compare
SELECT srvname    FROM pg_catalog.pg_foreign_server   WHERE srvname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER USER MAPPING FOR
-- compare
SELECT usename    FROM pg_catalog.pg_user_mappings   WHERE usename LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER AGGREGATE
SELECT p.proname, NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE p.prokind = 'a' AND (p.proname) LIKE '%' AND pg_catalog.pg_function_is_visible(p.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FUNCTION
SELECT p.proname, NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE p.prokind != 'p' AND (p.proname) LIKE '%' AND pg_catalog.pg_function_is_visible(p.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FUNCTION lower(
SELECT pg_catalog.oidvectortypes(p.proargtypes)||')', NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE (pg_catalog.oidvectortypes(p.proargtypes)||')') LIKE '%' AND p.proname = 'lower' AND pg_catalog.pg_function_is_visible(p.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FUNCTION pg_catalog.lower(
SELECT pg_catalog.oidvectortypes(p.proargtypes)||')', NULL::pg_catalog.text FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace nr WHERE (pg_catalog.oidvectortypes(p.proargtypes)||')') LIKE '%' AND p.proname = 'lower' AND p.pronamespace = nr.oid AND nr.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER PROCEDURE
SELECT p.proname, NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE p.prokind = 'p' AND (p.proname) LIKE '%' AND pg_catalog.pg_function_is_visible(p.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER ROUTINE
SELECT p.proname, NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE (p.proname) LIKE '%' AND pg_catalog.pg_function_is_visible(p.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE x RENAME VALUE
-- compare
SELECT pg_catalog.quote_literal(enumlabel), NULL::pg_catalog.text FROM pg_catalog.pg_enum e, pg_catalog.pg_type t WHERE t.oid = e.enumtypid AND (pg_catalog.quote_literal(enumlabel)) LIKE '%' AND t.typname = 'x' AND pg_catalog.pg_type_is_visible(t.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE pg_catalog.x RENAME VALUE
-- compare
SELECT pg_catalog.quote_literal(enumlabel), NULL::pg_catalog.text FROM pg_catalog.pg_enum e, pg_catalog.pg_type t, pg_catalog.pg_namespace nr WHERE t.oid = e.enumtypid AND (pg_catalog.quote_literal(enumlabel)) LIKE '%' AND t.typname = 'x' AND t.typnamespace = nr.oid AND nr.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE x ALTER ATTRIBUTE
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'x' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER DOMAIN
SELECT t.typname, NULL::pg_catalog.text FROM pg_catalog.pg_type t WHERE t.typtype = 'd' AND (t.typname) LIKE '%' AND pg_catalog.pg_type_is_visible(t.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER DOMAIN x DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_type t WHERE con.contypid=t.oid AND (con.conname) LIKE '%' AND t.typname = 'x' AND pg_catalog.pg_type_is_visible(t.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER COLLATION
SELECT c.collname, NULL::pg_catalog.text FROM pg_catalog.pg_collation c WHERE c.collencoding IN (-1, pg_catalog.pg_char_to_encoding(pg_catalog.getdatabaseencoding())) AND (c.collname) LIKE '%' AND pg_catalog.pg_collation_is_visible(c.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER CONVERSION
SELECT conname FROM pg_catalog.pg_conversion WHERE conname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER STATISTICS
SELECT s.stxname, NULL::pg_catalog.text FROM pg_catalog.pg_statistic_ext s WHERE (s.stxname) LIKE '%' AND pg_catalog.pg_statistics_obj_is_visible(s.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH CONFIGURATION
SELECT c.cfgname, NULL::pg_catalog.text FROM pg_catalog.pg_ts_config c WHERE (c.cfgname) LIKE '%' AND pg_catalog.pg_ts_config_is_visible(c.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH DICTIONARY
SELECT d.dictname, NULL::pg_catalog.text FROM pg_catalog.pg_ts_dict d WHERE (d.dictname) LIKE '%' AND pg_catalog.pg_ts_dict_is_visible(d.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH PARSER
SELECT p.prsname, NULL::pg_catalog.text FROM pg_catalog.pg_ts_parser p WHERE (p.prsname) LIKE '%' AND pg_catalog.pg_ts_parser_is_visible(p.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH TEMPLATE
SELECT t.tmplname, NULL::pg_catalog.text FROM pg_catalog.pg_ts_template t WHERE (t.tmplname) LIKE '%' AND pg_catalog.pg_ts_template_is_visible(t.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER DATABASE x SET
SELECT pg_catalog.lower(name) FROM pg_catalog.pg_settings  WHERE context IN ('user', 'superuser')    AND pg_catalog.lower(name) LIKE pg_catalog.lower('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER EVENT TRIGGER
-- compare
SELECT evtname    FROM pg_catalog.pg_event_trigger   WHERE evtname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER EXTENSION plpgsql UPDATE TO
SELECT version    FROM pg_catalog.pg_available_extension_versions   WHERE version LIKE '%' AND name='plpgsql'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER LANGUAGE
SELECT lanname   FROM pg_catalog.pg_language  WHERE lanname != 'internal'    AND lanname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER POLICY
-- compare
SELECT polname    FROM pg_catalog.pg_policy   WHERE polname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER POLICY x ON
SELECT DISTINCT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c, pg_catalog.pg_policy p WHERE c.oid=p.polrelid AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND p.polname = 'x'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER RULE
SELECT rulename FROM pg_catalog.pg_rules WHERE rulename LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER RULE
SELECT rulename FROM pg_catalog.pg_rules WHERE rulename LIKE 'pg\_settings\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER RULE x ON
SELECT DISTINCT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c, pg_catalog.pg_rewrite r WHERE c.oid=r.ev_class AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND r.rulename = 'x'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TRIGGER
-- compare
SELECT tgname FROM pg_catalog.pg_trigger WHERE tgname LIKE '%' AND NOT tgisinternal
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TRIGGER x ON
SELECT DISTINCT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c, pg_catalog.pg_trigger t WHERE c.oid=t.tgrelid AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND t.tgname = 'x'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER PUBLICATION
-- compare
SELECT pubname    FROM pg_catalog.pg_publication   WHERE pubname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER PUBLICATION x ADD TABLES IN SCHEMA
SELECT nspname FROM pg_catalog.pg_namespace  WHERE nspname LIKE '%' AND nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER SUBSCRIPTION
-- compare
SELECT s.subname    FROM pg_catalog.pg_subscription s, pg_catalog.pg_database d   WHERE s.subname LIKE '%'     AND d.datname = pg_catalog.current_database()     AND s.subdbid = d.oid
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER SYSTEM SET
SELECT pg_catalog.lower(name) FROM pg_catalog.pg_settings  WHERE context != 'internal'    AND pg_catalog.lower(name) LIKE pg_catalog.lower('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE TABLE x OF
SELECT t.typname, NULL::pg_catalog.text FROM pg_catalog.pg_type t WHERE (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) AND t.typname !~ '^_' AND (t.typname) LIKE '%' AND pg_catalog.pg_type_is_visible(t.oid)
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE TABLE x PARTITION OF
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE TABLE x (a int) USING
-- compare
SELECT amname    FROM pg_catalog.pg_am   WHERE amname LIKE '%' AND    amtype='t'
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE INDEX x ON customers USING
-- compare
SELECT amname    FROM pg_catalog.pg_am   WHERE amname LIKE '%' AND    amtype='i'
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE TRIGGER x BEFORE UPDATE OF
-- compare
SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 'of' AND pg_catalog.pg_table_is_visible(c.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE DATABASE x TEMPLATE
SELECT d.datname   FROM pg_catalog.pg_database d  WHERE d.datname LIKE '%'    AND (d.datistemplate OR pg_catalog.pg_has_role(d.datdba, 'USAGE'))
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE EXTENSION
SELECT name    FROM pg_catalog.pg_available_extensions   WHERE name LIKE '%' AND installed_version IS NULL
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE EXTENSION x VERSION
-- compare
SELECT version    FROM pg_catalog.pg_available_extension_versions   WHERE version LIKE '%' AND name='x'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP TABLE c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'p') AND (c.relname) LIKE 'c%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'c%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP TABLE public.c
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p') AND (c.relname) LIKE 'c%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP AGGREGATE count(
SELECT pg_catalog.oidvectortypes(p.proargtypes)||')', NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE (pg_catalog.oidvectortypes(p.proargtypes)||')') LIKE '%' AND p.proname = 'count' AND pg_catalog.pg_function_is_visible(p.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP ACCESS METHOD
-- compare
SELECT amname    FROM pg_catalog.pg_am   WHERE amname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: COMMENT ON CONSTRAINT
SELECT conname   FROM pg_catalog.pg_constraint c  WHERE c.conrelid <> 0        and conname LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: COMMENT ON CONSTRAINT x ON
SELECT DISTINCT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c, pg_catalog.pg_constraint con WHERE c.oid=con.conrelid and c.relkind IN ('r', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND con.conname = 'x'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SET search_path TO
SELECT nspname FROM pg_catalog.pg_namespace  WHERE nspname LIKE '%' AND nspname NOT LIKE E'pg\\_toast%' AND nspname NOT LIKE E'pg\\_temp%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SET client_min_messages TO
SELECT vartype FROM pg_catalog.pg_settings WHERE pg_catalog.lower(name) = pg_catalog.lower('client_min_messages')
;;

-- client: psql 15 tab completion: SET client_min_messages TO
SELECT val FROM (    SELECT name, pg_catalog.unnest(enumvals) AS val      FROM pg_catalog.pg_settings     ) ss   WHERE val LIKE '%'        and pg_catalog.lower(name)=pg_catalog.lower('client_min_messages')
LIMIT 1000
;;

-- client: psql 15 tab completion: SET timezone TO
SELECT pg_catalog.quote_literal(name) AS name   FROM pg_catalog.pg_timezone_names()  WHERE pg_catalog.lower(name) LIKE pg_catalog.lower('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: SET timezone TO '
SELECT name    FROM pg_catalog.pg_timezone_names()   WHERE pg_catalog.lower(name) LIKE pg_catalog.lower('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: SET SCHEMA
-- compare
SELECT vartype FROM pg_catalog.pg_settings WHERE pg_catalog.lower(name) = pg_catalog.lower('SCHEMA')
;;

-- client: psql 15 tab completion: SET CONSTRAINTS
SELECT c.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint c WHERE c.conrelid <> 0 AND (c.conname) LIKE '%'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: SET enable_seqscan TO
SELECT vartype FROM pg_catalog.pg_settings WHERE pg_catalog.lower(name) = pg_catalog.lower('enable_seqscan')
;;

-- client: psql 15 tab completion: SET default_tablespace TO
SELECT vartype FROM pg_catalog.pg_settings WHERE pg_catalog.lower(name) = pg_catalog.lower('default_tablespace')
;;

-- client: psql 15 tab completion: SHOW
SELECT pg_catalog.lower(name) FROM pg_catalog.pg_settings  WHERE pg_catalog.lower(name) LIKE pg_catalog.lower('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: FETCH
-- compare
SELECT name    FROM pg_catalog.pg_cursors   WHERE name LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: EXECUTE
-- compare
SELECT name    FROM pg_catalog.pg_prepared_statements   WHERE name LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: UNLISTEN
-- compare
SELECT channel    FROM pg_catalog.pg_listening_channels() AS channel   WHERE channel LIKE '%'
LIMIT 1000
;;

-- client: psql 15 tab completion: MERGE INTO
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'p')  AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: \d
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: \d c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE (c.relname) LIKE 'c%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'c%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: \d c
-- compare
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE (c.relname) LIKE 'customer%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'customer%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: \d public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: \dP
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('p', 'I') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: \encoding
SELECT DISTINCT pg_catalog.pg_encoding_to_char(conforencoding)    FROM pg_catalog.pg_conversion   WHERE pg_catalog.pg_encoding_to_char(conforencoding) LIKE pg_catalog.upper('%')
LIMIT 1000
;;

-- client: psql 15 tab completion: CLUSTER public.customers USING
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i, pg_catalog.pg_namespace nr WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid AND (c2.relname) LIKE '%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: CLUSTER public.customers USING
-- compare
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_index i, pg_catalog.pg_namespace nr WHERE c1.oid=i.indrelid and i.indexrelid=c2.oid AND (c2.relname) LIKE 'customers\_%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1, pg_catalog.pg_namespace nr WHERE con.conrelid=c1.oid AND (con.conname) LIKE '%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1, pg_catalog.pg_namespace nr WHERE con.conrelid=c1.oid AND (con.conname) LIKE 'customers\_%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers VALIDATE CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_class c1, pg_catalog.pg_namespace nr WHERE con.conrelid=c1.oid and not con.convalidated AND (con.conname) LIKE '%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers DETACH PARTITION
SELECT c2.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c1, pg_catalog.pg_class c2, pg_catalog.pg_inherits i, pg_catalog.pg_namespace nr WHERE c1.oid=i.inhparent and i.inhrelid=c2.oid and c2.relispartition AND (c2.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c2.oid) AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers DISABLE TRIGGER
-- compare
SELECT t.tgname, NULL::pg_catalog.text FROM pg_catalog.pg_trigger t, pg_catalog.pg_class c1, pg_catalog.pg_namespace nr WHERE t.tgrelid=c1.oid and not t.tgisinternal AND (t.tgname) LIKE '%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TABLE public.customers DISABLE RULE
-- compare
SELECT r.rulename, NULL::pg_catalog.text FROM pg_catalog.pg_rewrite r, pg_catalog.pg_class c1, pg_catalog.pg_namespace nr WHERE r.ev_class=c1.oid AND (r.rulename) LIKE '%' AND c1.relname = 'customers' AND c1.relnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER DOMAIN public.x DROP CONSTRAINT
-- compare
SELECT con.conname, NULL::pg_catalog.text FROM pg_catalog.pg_constraint con, pg_catalog.pg_type t, pg_catalog.pg_namespace nr WHERE con.contypid=t.oid AND (con.conname) LIKE '%' AND t.typname = 'x' AND t.typnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP TRIGGER x ON public.
-- compare
SELECT DISTINCT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_trigger t, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.oid=t.tgrelid AND (c.relname) LIKE '%' AND n.nspname = 'public' AND t.tgname = 'x'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP RULE x ON public.
-- compare
SELECT DISTINCT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_rewrite r, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.oid=r.ev_class AND (c.relname) LIKE '%' AND n.nspname = 'public' AND r.rulename = 'x'
LIMIT 1000
;;

-- client: psql 15 tab completion: DROP POLICY x ON public.
-- compare
SELECT DISTINCT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_policy p, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.oid=p.polrelid AND (c.relname) LIKE '%' AND n.nspname = 'public' AND p.polname = 'x'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE public.x RENAME VALUE
-- compare
SELECT pg_catalog.quote_literal(enumlabel), NULL::pg_catalog.text FROM pg_catalog.pg_enum e, pg_catalog.pg_type t, pg_catalog.pg_namespace nr WHERE t.oid = e.enumtypid AND (pg_catalog.quote_literal(enumlabel)) LIKE '%' AND t.typname = 'x' AND t.typnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER FUNCTION public.f(
-- compare
SELECT pg_catalog.oidvectortypes(p.proargtypes)||')', NULL::pg_catalog.text FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace nr WHERE (pg_catalog.oidvectortypes(p.proargtypes)||')') LIKE '%' AND p.proname = 'f' AND p.pronamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: COMMENT ON CONSTRAINT x ON public.
-- compare
SELECT DISTINCT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_constraint con, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.oid=con.conrelid and c.relkind IN ('r', 'p') AND (c.relname) LIKE '%' AND n.nspname = 'public' AND con.conname = 'x'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER COLLATION pg_catalog.
SELECT c.collname, n.nspname FROM pg_catalog.pg_collation c, pg_catalog.pg_namespace n WHERE c.collnamespace = n.oid AND c.collencoding IN (-1, pg_catalog.pg_char_to_encoding(pg_catalog.getdatabaseencoding())) AND (c.collname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER STATISTICS public.
-- compare
SELECT s.stxname, n.nspname FROM pg_catalog.pg_statistic_ext s, pg_catalog.pg_namespace n WHERE s.stxnamespace = n.oid AND (s.stxname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH CONFIGURATION pg_catalog.
SELECT c.cfgname, n.nspname FROM pg_catalog.pg_ts_config c, pg_catalog.pg_namespace n WHERE c.cfgnamespace = n.oid AND (c.cfgname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH DICTIONARY pg_catalog.
SELECT d.dictname, n.nspname FROM pg_catalog.pg_ts_dict d, pg_catalog.pg_namespace n WHERE d.dictnamespace = n.oid AND (d.dictname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH PARSER pg_catalog.
SELECT p.prsname, n.nspname FROM pg_catalog.pg_ts_parser p, pg_catalog.pg_namespace n WHERE p.prsnamespace = n.oid AND (p.prsname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TEXT SEARCH TEMPLATE pg_catalog.
SELECT t.tmplname, n.nspname FROM pg_catalog.pg_ts_template t, pg_catalog.pg_namespace n WHERE t.tmplnamespace = n.oid AND (t.tmplname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER INDEX public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('i', 'I') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER AGGREGATE pg_catalog.
SELECT p.proname, n.nspname FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace n WHERE p.pronamespace = n.oid AND p.prokind = 'a' AND (p.proname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER DOMAIN pg_catalog.
-- compare
SELECT t.typname, n.nspname FROM pg_catalog.pg_type t, pg_catalog.pg_namespace n WHERE t.typnamespace = n.oid AND t.typtype = 'd' AND (t.typname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER SEQUENCE public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('S') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER VIEW public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('v') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER MATERIALIZED VIEW public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('m') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER PROCEDURE public.
-- compare
SELECT p.proname, n.nspname FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace n WHERE p.pronamespace = n.oid AND p.prokind = 'p' AND (p.proname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER ROUTINE pg_catalog.
SELECT p.proname, n.nspname FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace n WHERE p.pronamespace = n.oid AND (p.proname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE pg_catalog.
SELECT t.typname, n.nspname FROM pg_catalog.pg_type t, pg_catalog.pg_namespace n WHERE t.typnamespace = n.oid AND (t.typrelid = 0  OR (SELECT c.relkind = 'c'     FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid)) AND t.typname !~ '^_' AND (t.typname) LIKE '%' AND n.nspname = 'pg_catalog'
LIMIT 1000
;;

-- client: psql 15 tab completion: CREATE TABLE x OF public.
-- compare
SELECT t.typname, n.nspname FROM pg_catalog.pg_type t, pg_catalog.pg_namespace n WHERE t.typnamespace = n.oid AND (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) AND t.typname !~ '^_' AND (t.typname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: INSERT INTO public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'f', 'v', 'p') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: TRUNCATE public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'f', 'p') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: VACUUM public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'm') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: ANALYZE public.
-- compare
SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'm', 'f') AND (c.relname) LIKE '%' AND n.nspname = 'public'
LIMIT 1000
;;

-- client: psql 15 tab completion: SET timezone TO 'Eu
-- compare
SELECT name    FROM pg_catalog.pg_timezone_names()   WHERE pg_catalog.lower(name) LIKE pg_catalog.lower('Eu%')
LIMIT 1000
;;

-- client: psql 15 tab completion: SET timezone TO 'Eu
-- compare
SELECT name    FROM pg_catalog.pg_timezone_names()   WHERE pg_catalog.lower(name) LIKE pg_catalog.lower('Europe/%')
LIMIT 1000
;;

-- client: psql 15 tab completion: \dPi
SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind = 'I' AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
UNION ALL
SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE x RENAME VALUE '
-- compare
SELECT e.enumlabel, NULL::pg_catalog.text FROM pg_catalog.pg_enum e, pg_catalog.pg_type t WHERE t.oid = e.enumtypid AND (e.enumlabel) LIKE '%' AND t.typname = 'x' AND pg_catalog.pg_type_is_visible(t.oid)
LIMIT 1000
;;

-- client: psql 15 tab completion: ALTER TYPE public.x RENAME VALUE '
-- compare
SELECT e.enumlabel, NULL::pg_catalog.text FROM pg_catalog.pg_enum e, pg_catalog.pg_type t, pg_catalog.pg_namespace nr WHERE t.oid = e.enumtypid AND (e.enumlabel) LIKE '%' AND t.typname = 'x' AND t.typnamespace = nr.oid AND nr.nspname = 'public'
LIMIT 1000
;;

