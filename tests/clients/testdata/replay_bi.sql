-- Catalog and data queries of BI and admin tools (Grafana's PostgreSQL
-- data source, Metabase's sync, DBeaver's navigator, pgAdmin's browser)
-- over their own small schema (the setup block below: a primary key, a
-- foreign key, a unique column, a serial column, defaults, comments, a
-- view, a materialized view, an index and an enum type). Format: see
-- replayQuery in replay_test.go; TestReplay runs them on Eddy and
-- PostgreSQL 15. pgAdmin's Jinja templates are rendered for PostgreSQL 15
-- with their object parameters bound as ? ("-- param-sql"); Metabase's
-- HoneySQL is written as HoneySQL 2 renders it ({:dialect :ansi}).

-- setup
CREATE TYPE bi_status AS ENUM ('new', 'paid', 'shipped');
CREATE TABLE bi_customers (id int PRIMARY KEY, name text NOT NULL, email varchar(100) UNIQUE);
CREATE TABLE bi_orders (id serial PRIMARY KEY, customer_id int REFERENCES bi_customers(id), amount numeric(10,2), status bi_status DEFAULT 'new', created timestamptz NOT NULL);
COMMENT ON TABLE bi_orders IS 'one row per order';
COMMENT ON COLUMN bi_orders.amount IS 'in euros';
CREATE INDEX bi_orders_created_idx ON bi_orders (created);
CREATE VIEW bi_paid AS SELECT id, amount FROM bi_orders WHERE status = 'paid';
CREATE MATERIALIZED VIEW bi_daily AS SELECT date_trunc('day', created) AS day, sum(amount) AS total FROM bi_orders GROUP BY 1;
INSERT INTO bi_customers VALUES (1, 'ann', 'ann@example.com'), (2, 'bob', NULL);
INSERT INTO bi_orders (customer_id, amount, status, created) VALUES (1, 10.50, 'paid', '2024-01-01 10:15:00+00'), (1, 4.25, 'new', '2024-01-01 10:45:00+00'), (2, 7.00, 'shipped', '2024-01-01 12:00:00+00');
;;

-- client: grafana ($__timeGroupAlias, $__timeFilter expanded)
-- from: grafana/grafana pkg/tsdb/grafana-postgresql-datasource/macros.go ($__timeGroupAlias, $__timeFilter expanded)
-- compare: rows
SELECT floor(extract(epoch from created)/3600)*3600 AS "time", sum(amount) AS total
FROM bi_orders
WHERE created BETWEEN '2024-01-01T00:00:00Z' AND '2024-01-02T00:00:00Z'
GROUP BY 1 ORDER BY 1
;;

-- client: metabase (get-tables-sql, schemas ["public"])
-- from: metabase/metabase src/metabase/driver/postgres.clj (get-tables-sql, schemas ["public"])
-- compare: rows
-- ignore: estimated_row_count
-- param-sql: 'public'
SELECT "n"."nspname" AS "schema", "c"."relname" AS "name", CASE "c"."relkind" WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END AS "type", "d"."description" AS "description", "stat"."n_live_tup" AS "estimated_row_count" FROM "pg_catalog"."pg_class" AS "c" INNER JOIN "pg_catalog"."pg_namespace" AS "n" ON "c"."relnamespace" = "n"."oid" LEFT JOIN "pg_catalog"."pg_description" AS "d" ON ("c"."oid" = "d"."objoid") AND ("d"."objsubid" = 0) AND ("d"."classoid" = 'pg_class'::regclass) LEFT JOIN "pg_stat_user_tables" AS "stat" ON ("n"."nspname" = "stat"."schemaname") AND ("c"."relname" = "stat"."relname") WHERE ("c"."relnamespace" = "n"."oid") AND ("n"."nspname" !~ '^pg_') AND ("n"."nspname" <> 'information_schema') AND c.relkind in ('r', 'p', 'v', 'f', 'm') AND ("n"."nspname" IN (?)) ORDER BY "type" ASC, "schema" ASC, "name" ASC
;;

-- client: metabase (describe-fields-sql, the information_schema branch of its UNION ALL, schema "public", table "bi_orders")
-- from: metabase/metabase src/metabase/driver/postgres.clj (describe-fields-sql, the information_schema branch of its UNION ALL, schema "public", table "bi_orders")
-- compare: rows
-- param-sql: 'public'; 'bi_orders'
SELECT "c"."column_name" AS "name", CASE WHEN "c"."udt_schema" IN ('public', 'pg_catalog') THEN FORMAT('%s', "c"."udt_name") ELSE FORMAT('"%s"."%s"', "c"."udt_schema", "c"."udt_name") END AS "database-type", "c"."ordinal_position" - 1 AS "database-position", "c"."table_schema" AS "table-schema", "c"."table_name" AS "table-name", "pk"."column_name" IS NOT NULL AS "pk?", COL_DESCRIPTION(CAST(CAST(FORMAT('%I.%I', CAST("c"."table_schema" AS TEXT), CAST("c"."table_name" AS TEXT)) AS REGCLASS) AS OID), "c"."ordinal_position") AS "field-comment", (("column_default" IS NULL) OR (LOWER("column_default") = 'null')) AND ("is_nullable" = 'NO') AND NOT ((("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO')) AS "database-required", (("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO') AS "database-is-auto-increment" FROM "information_schema"."columns" AS "c" LEFT JOIN (SELECT "tc"."table_schema", "tc"."table_name", "kc"."column_name" FROM "information_schema"."table_constraints" AS "tc" INNER JOIN "information_schema"."key_column_usage" AS "kc" ON ("tc"."constraint_name" = "kc"."constraint_name") AND ("tc"."table_schema" = "kc"."table_schema") AND ("tc"."table_name" = "kc"."table_name") WHERE "tc"."constraint_type" = 'PRIMARY KEY') AS "pk" ON ("c"."table_schema" = "pk"."table_schema") AND ("c"."table_name" = "pk"."table_name") AND ("c"."column_name" = "pk"."column_name") WHERE c.table_schema !~ '^information_schema|catalog_history|pg_' AND ("c"."table_schema" IN (?)) AND ("c"."table_name" IN (?))
;;

-- client: dbeaver (TableCache.prepareObjectsStatement, server 10+)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/PostgreSchema.java (TableCache.prepareObjectsStatement, server 10+)
-- compare: run
-- param-sql: (SELECT oid FROM pg_namespace WHERE nspname = 'public')
SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key 
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=? AND c.relkind not in ('i','I','c')
;;

-- client: dbeaver (TableCache.prepareChildrenStatement, one table)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/PostgreSchema.java (TableCache.prepareChildrenStatement, one table)
-- compare: run
-- param-sql: (SELECT oid FROM pg_class WHERE relname = 'bi_orders')
SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid=?
ORDER BY a.attnum
;;

-- client: dbeaver (ConstraintCache.prepareObjectsStatement, whole schema)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/PostgreSchema.java (ConstraintCache.prepareObjectsStatement, whole schema)
-- compare: run
-- param-sql: (SELECT oid FROM pg_namespace WHERE nspname = 'public')
SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.contype='c' then "substring"(pg_get_constraintdef(c.oid), 7) else null end consrc_copy
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass
WHERE t.relnamespace=?
ORDER BY c.oid
;;

-- client: dbeaver (IndexCache.prepareObjectsStatement, whole schema)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/PostgreSchema.java (IndexCache.prepareObjectsStatement, whole schema)
-- compare: run
-- param-sql: (SELECT oid FROM pg_namespace WHERE nspname = 'public')
SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  c.relnamespace=? ORDER BY c.relname
;;

-- client: pgadmin (nodes.sql, scid = public)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases/schemas/tables/templates/tables/sql/default/nodes.sql (scid = public)
-- compare: rows
-- differs: PostgreSQL implements foreign keys with triggers (two per table here), Eddy without; pg_trigger is empty
-- param-sql: (SELECT oid FROM pg_namespace WHERE nspname = 'public')
SELECT rel.oid, rel.relname AS name,
    (SELECT count(*) FROM pg_trigger WHERE tgrelid=rel.oid) AS triggercount,
    (SELECT count(*) FROM pg_trigger WHERE tgrelid=rel.oid AND tgenabled = 'O') AS has_enable_triggers,
	(SELECT count(1) FROM pg_inherits WHERE inhrelid=rel.oid LIMIT 1) as is_inherits,
	(SELECT count(1) FROM pg_inherits WHERE inhparent=rel.oid LIMIT 1) as is_inherited
FROM pg_class rel
    WHERE rel.relkind IN ('r','s','t') AND rel.relnamespace = ?::oid
    ORDER BY rel.relname;
;;

-- client: pgadmin (get_columns_for_table.sql, tname = 'bi_orders')
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases/schemas/tables/templates/tables/sql/default/get_columns_for_table.sql (tname = 'bi_orders')
-- compare: rows
-- differs: a serial default deparses as nextval('seq'::text), PostgreSQL's as nextval('seq'::regclass) (Eddy's nextval takes text)
SELECT
    a.attname AS name, pg_catalog.format_type(a.atttypid, NULL) AS cltype,
    pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS defval,
    pg_catalog.quote_ident(n.nspname)||'.'||pg_catalog.quote_ident(c.relname) as inheritedfrom,
    c.oid as inheritedid
FROM
    pg_catalog.pg_class c
JOIN
    pg_catalog.pg_namespace n ON c.relnamespace=n.oid
JOIN
    pg_catalog.pg_attribute a ON a.attrelid = c.oid AND NOT a.attisdropped AND a.attnum > 0
LEFT OUTER JOIN
    pg_catalog.pg_attrdef def ON adrelid=a.attrelid AND adnum=a.attnum
WHERE

    c.relname = 'bi_orders'
;;

-- client: pgadmin (get_table_row_count.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases/schemas/tables/templates/tables/sql/default/get_table_row_count.sql
-- compare: rows
SELECT COUNT(*)::text FROM public.bi_orders;
;;

-- client: dbeaver (prepareObjectsStatement, schema public)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/PostgreDataTypeCache.java (prepareObjectsStatement, schema public)
-- compare: rows
-- param-sql: (SELECT oid FROM pg_namespace WHERE nspname = 'public')
SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description
FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem 
LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname IS NOT NULL
AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C')
AND t.typnamespace=? 
;;

-- client: pgadmin (triggers/properties.sql, tid = bi_orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases/schemas/tables/templates/triggers/sql/ppas/12_plus/properties.sql (tid = bi_orders; rendered for PostgreSQL 15: no datlastsysoid, no tgpackageoid outside EDB)
-- compare: rows
-- param-sql: (SELECT oid FROM pg_class WHERE relname = 'bi_orders')
SELECT t.oid,t.tgname AS name, t.xmin, t.tgenabled AS is_enable_trigger, t.*, relname, CASE WHEN relkind = 'r' THEN TRUE ELSE FALSE END AS parentistable,
    nspname, des.description, l.lanname, p.prosrc, p.proname AS tfunction,
    COALESCE(pg_catalog.substring(pg_catalog.pg_get_triggerdef(t.oid, true), 'WHEN (.*) EXECUTE (PROCEDURE|FUNCTION)'),
    pg_catalog.substring(pg_catalog.pg_get_triggerdef(t.oid, true), 'WHEN (.*)  \$trigger')) AS whenclause,
    (pg_catalog.string_to_array(encode(tgargs, 'escape'), E'\\000')::text[])[1:tgnargs] AS custom_tgargs,
    (CASE WHEN tgconstraint != 0::OID THEN true ElSE false END) AS is_constraint_trigger,
    tgoldtable,
    tgnewtable
FROM pg_catalog.pg_trigger t
    JOIN pg_catalog.pg_class cl ON cl.oid=tgrelid
    JOIN pg_catalog.pg_namespace na ON na.oid=relnamespace
    LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=t.oid AND des.classoid='pg_trigger'::regclass)
    LEFT OUTER JOIN pg_catalog.pg_proc p ON p.oid=t.tgfoid
    LEFT OUTER JOIN pg_catalog.pg_language l ON l.oid=p.prolang
WHERE NOT tgisinternal
    AND tgrelid = ?::OID
ORDER BY tgname
;;

-- client: metabase (current-user-table-privileges: which tables sync may read and write)
-- from: metabase/metabase src/metabase/driver/postgres.clj (sql-jdbc.sync/current-user-table-privileges)
-- compare: rows
with table_privileges as (
 select
   NULL as role,
   t.schemaname as schema,
   t.objectname as table,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'update') as update,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'select') as select,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'insert') as insert,
   pg_catalog.has_table_privilege(     current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'delete') as delete
 from (
   select schemaname, tablename as objectname from pg_catalog.pg_tables
   union
   select schemaname, viewname as objectname from pg_catalog.pg_views
   union
   select schemaname, matviewname as objectname from pg_catalog.pg_matviews
 ) t
 where t.schemaname !~ '^pg_'
   and t.schemaname <> 'information_schema'
   and pg_catalog.has_schema_privilege(current_user, t.schemaname, 'usage')
)
select t.*
from table_privileges t
;;
