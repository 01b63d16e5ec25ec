-- Catalog queries BI and admin tools send to PostgreSQL, as they appear in
-- their public source (Grafana's PostgreSQL data source, Metabase's
-- postgres driver sync, DBeaver's navigator caches, pgAdmin's browser
-- templates), rendered for schema.sql: template variables filled with the
-- public schema and its tables, HoneySQL forms written out as the SQL they
-- produce. Format: see replayQuery in replay_test.go (each entry names the
-- tool and, in "-- from", where its query comes from); TestReplay runs
-- every one on Eddy and PostgreSQL.

-- client: grafana (health check: a comment-only query, EmptyQueryResponse)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
-- ping
;;

-- client: grafana (postgresMetaQuery getVersion)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
SELECT current_setting('server_version_num')::int/100 as version
;;

-- client: grafana (getTimescaleDBVersion)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'
;;

-- client: grafana (showSchemas)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
SELECT schema_name AS "name"
    FROM information_schema.schemata
    WHERE schema_name NOT IN ('information_schema',
                              'pg_catalog',
                              'pg_toast',
                              '_timescaledb_cache',
                              '_timescaledb_catalog',
                              '_timescaledb_internal',
                              '_timescaledb_config',
                              'timescaledb_information',
                              'timescaledb_experimental')
    ORDER BY schema_name
;;

-- client: grafana (showTables with a schema)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
SELECT quote_ident(table_name) AS "table"
      FROM information_schema.tables
      WHERE quote_ident(table_schema) = 'public'
      ORDER BY 1
;;

-- client: grafana (showTables on the search path)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
SELECT
    CASE WHEN
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          )
      THEN quote_ident(table_name)
      ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)
    END AS "table"
    FROM information_schema.tables
    WHERE quote_ident(table_schema) NOT IN ('information_schema',
                             'pg_catalog',
                             '_timescaledb_cache',
                             '_timescaledb_catalog',
                             '_timescaledb_internal',
                             '_timescaledb_config',
                             'timescaledb_information',
                             'timescaledb_experimental')
    ORDER BY CASE WHEN
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          ) THEN 0 ELSE 1 END, 1
;;

-- client: grafana (getSchema of a table: the column picker)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident('orders'),1) = 2
        THEN quote_ident(table_schema) = (parse_ident('orders'))[1]
          AND quote_ident(table_name) = (parse_ident('orders'))[2]
        ELSE quote_ident(table_name) = 'orders'
          AND
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          )
      END
;;

-- client: grafana (getSchema of a qualified table)
-- from: grafana/grafana the PostgreSQL data source (public/app/plugins/datasource/grafana-postgresql-datasource, pkg/tsdb/grafana-postgresql-datasource)
-- compare
SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident('public.customers'),1) = 2
        THEN quote_ident(table_schema) = (parse_ident('public.customers'))[1]
          AND quote_ident(table_name) = (parse_ident('public.customers'))[2]
        ELSE quote_ident(table_name) = 'public.customers'
      END
;;

-- client: metabase (db-default-timezone)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
show timezone;
;;

-- client: metabase (enum-types)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
SELECT nspname, typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid IN (SELECT DISTINCT enumtypid FROM pg_enum e)
;;

-- client: metabase (get-tables-sql)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
SELECT n.nspname AS schema, c.relname AS name, CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END AS type, d.description AS description, stat.n_live_tup AS estimated_row_count FROM pg_catalog.pg_class AS c INNER JOIN pg_catalog.pg_namespace AS n ON c.relnamespace = n.oid LEFT JOIN pg_catalog.pg_description AS d ON (c.oid = d.objoid) AND (d.objsubid = 0) AND (d.classoid = 'pg_class'::regclass) LEFT JOIN pg_stat_user_tables AS stat ON (n.nspname = stat.schemaname) AND (c.relname = stat.relname) WHERE (c.relnamespace = n.oid) AND (n.nspname !~ '^pg_') AND (n.nspname <> 'information_schema') AND c.relkind in ('r', 'p', 'v', 'f', 'm') AND (n.nspname IN ('public')) ORDER BY type ASC, schema ASC, name ASC
;;

-- client: metabase (describe-fields-sql)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
SELECT "c"."column_name" AS "name", CASE WHEN "c"."udt_schema" IN ('public', 'pg_catalog') THEN FORMAT('%s', "c"."udt_name") ELSE FORMAT('"%s"."%s"', "c"."udt_schema", "c"."udt_name") END AS "database-type", "c"."ordinal_position" - 1 AS "database-position", "c"."table_schema" AS "table-schema", "c"."table_name" AS "table-name", "pk"."column_name" IS NOT NULL AS "pk?", COL_DESCRIPTION(CAST(CAST(FORMAT('%I.%I', CAST("c"."table_schema" AS TEXT), CAST("c"."table_name" AS TEXT)) AS REGCLASS) AS OID), "c"."ordinal_position") AS "field-comment", (("column_default" IS NULL) OR (LOWER("column_default") = 'null')) AND ("is_nullable" = 'NO') AND NOT ((("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO')) AS "database-required", (("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO') AS "database-is-auto-increment" FROM "information_schema"."columns" AS "c" LEFT JOIN (SELECT "tc"."table_schema", "tc"."table_name", "kc"."column_name" FROM "information_schema"."table_constraints" AS "tc" INNER JOIN "information_schema"."key_column_usage" AS "kc" ON ("tc"."constraint_name" = "kc"."constraint_name") AND ("tc"."table_schema" = "kc"."table_schema") AND ("tc"."table_name" = "kc"."table_name") WHERE "tc"."constraint_type" = 'PRIMARY KEY') AS "pk" ON ("c"."table_schema" = "pk"."table_schema") AND ("c"."table_name" = "pk"."table_name") AND ("c"."column_name" = "pk"."column_name") WHERE c.table_schema !~ '^information_schema|catalog_history|pg_' AND ("c"."table_schema" IN ('public')) UNION ALL SELECT "pa"."attname" AS "name", CASE WHEN "ptn"."nspname" IN ('public', 'pg_catalog') THEN FORMAT('%s', "pt"."typname") ELSE FORMAT('"%s"."%s"', "ptn"."nspname", "pt"."typname") END AS "database-type", "pa"."attnum" - 1 AS "database-position", "pn"."nspname" AS "table-schema", "pc"."relname" AS "table-name", FALSE AS "pk?", NULL AS "field-comment", FALSE AS "database-required", FALSE AS "database-is-auto-increment" FROM "pg_catalog"."pg_class" AS "pc" INNER JOIN "pg_catalog"."pg_namespace" AS "pn" ON "pn"."oid" = "pc"."relnamespace" INNER JOIN "pg_catalog"."pg_attribute" AS "pa" ON "pa"."attrelid" = "pc"."oid" INNER JOIN "pg_catalog"."pg_type" AS "pt" ON "pt"."oid" = "pa"."atttypid" INNER JOIN "pg_catalog"."pg_namespace" AS "ptn" ON "ptn"."oid" = "pt"."typnamespace" WHERE ("pc"."relkind" = 'm') AND ("pa"."attnum" >= 1) AND ("pn"."nspname" IN ('public')) ORDER BY "table-schema" ASC, "table-name" ASC, "database-position" ASC
;;

-- client: metabase (describe-fks-sql)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
SELECT "fk_ns"."nspname" AS "fk-table-schema", "fk_table"."relname" AS "fk-table-name", "fk_column"."attname" AS "fk-column-name", "pk_ns"."nspname" AS "pk-table-schema", "pk_table"."relname" AS "pk-table-name", "pk_column"."attname" AS "pk-column-name" FROM "pg_constraint" AS "c" INNER JOIN "pg_class" AS "fk_table" ON "c"."conrelid" = "fk_table"."oid" INNER JOIN "pg_namespace" AS "fk_ns" ON "c"."connamespace" = "fk_ns"."oid" INNER JOIN "pg_attribute" AS "fk_column" ON "c"."conrelid" = "fk_column"."attrelid" INNER JOIN "pg_class" AS "pk_table" ON "c"."confrelid" = "pk_table"."oid" INNER JOIN "pg_namespace" AS "pk_ns" ON "pk_table"."relnamespace" = "pk_ns"."oid" INNER JOIN "pg_attribute" AS "pk_column" ON "c"."confrelid" = "pk_column"."attrelid" WHERE fk_ns.nspname !~ '^information_schema|catalog_history|pg_' AND ("c"."contype" = 'f'::char) AND ("fk_column"."attnum" = ANY(c.conkey)) AND ("pk_column"."attnum" = ANY(c.confkey)) AND ("fk_ns"."nspname" IN ('public')) ORDER BY "fk-table-schema" ASC, "fk-table-name" ASC
;;

-- client: metabase (describe-indexes-sql)
-- from: metabase/metabase src/metabase/driver/postgres.clj
-- compare
SELECT "tmp"."table-schema", "tmp"."table-name", TRIM(BOTH '"' FROM PG_CATALOG.PG_GET_INDEXDEF("tmp"."ci_oid", "tmp"."pos", FALSE)) AS "field-name" FROM (SELECT "n"."nspname" AS "table-schema", "ct"."relname" AS "table-name", "ci"."oid" AS "ci_oid", (INFORMATION_SCHEMA._PG_EXPANDARRAY("i"."indkey"))."n" AS "pos" FROM "pg_catalog"."pg_class" AS "ct" INNER JOIN "pg_catalog"."pg_namespace" AS "n" ON "ct"."relnamespace" = "n"."oid" INNER JOIN "pg_catalog"."pg_index" AS "i" ON "ct"."oid" = "i"."indrelid" INNER JOIN "pg_catalog"."pg_class" AS "ci" ON "ci"."oid" = "i"."indexrelid" WHERE (PG_CATALOG.PG_GET_EXPR("i"."indpred", "i"."indrelid") IS NULL) AND n.nspname !~ '^information_schema|catalog_history|pg_' AND ("n"."nspname" IN ('public'))) AS "tmp" WHERE "tmp"."pos" = 1
;;

-- client: dbeaver (schema cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
 ORDER BY nspname
;;

-- client: dbeaver (table cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["public"]
SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key 
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname=$1) AND c.relkind not in ('i','I','c') order by relname
;;

-- client: dbeaver (column cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid='public.orders'::regclass
ORDER BY a.attnum
;;

-- client: pgadmin (schemas nodes.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT
    nsp.oid,
    nsp.nspname as name,
    pg_catalog.has_schema_privilege(nsp.oid, 'CREATE') as can_create,
    pg_catalog.has_schema_privilege(nsp.oid, 'USAGE') as has_usage,
    des.description
FROM
    pg_catalog.pg_namespace nsp
    LEFT OUTER JOIN pg_catalog.pg_description des ON
        (des.objoid=nsp.oid AND des.classoid='pg_namespace'::regclass)
WHERE
     nspname NOT LIKE E'pg\\_%' AND
    NOT (
        (nsp.nspname = 'pg_catalog' AND EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE relname = 'pg_class' AND relnamespace = nsp.oid LIMIT 1)) OR
        (nsp.nspname = 'information_schema' AND EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE relname = 'tables' AND relnamespace = nsp.oid LIMIT 1))
    )
ORDER BY nspname
;;

-- client: pgadmin (tables nodes.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT rel.oid, rel.relname AS name,
    (SELECT count(*) FROM pg_trigger WHERE tgrelid=rel.oid) AS triggercount,
    (SELECT count(*) FROM pg_trigger WHERE tgrelid=rel.oid AND tgenabled = 'O') AS has_enable_triggers,
	(SELECT count(1) FROM pg_inherits WHERE inhrelid=rel.oid LIMIT 1) as is_inherits,
	(SELECT count(1) FROM pg_inherits WHERE inhparent=rel.oid LIMIT 1) as is_inherited
FROM pg_class rel
    WHERE rel.relkind IN ('r','s','t') AND rel.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'public')::oid
    ORDER BY rel.relname
;;

-- client: pgadmin (columns 12_plus nodes.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT DISTINCT att.attname as name, att.attnum as OID, pg_catalog.format_type(ty.oid,NULL) AS datatype,
pg_catalog.format_type(ty.oid,att.atttypmod) AS displaytypname,
att.attnotnull as not_null,
CASE WHEN att.atthasdef OR att.attidentity != '' OR ty.typdefault IS NOT NULL THEN True
ELSE False END as has_default_val, des.description, seq.seqtypid,
CASE WHEN att.attgenerated = 's' THEN true ELSE false END as is_generated
FROM pg_catalog.pg_attribute att
    JOIN pg_catalog.pg_type ty ON ty.oid=atttypid
    JOIN pg_catalog.pg_namespace tn ON tn.oid=ty.typnamespace
    JOIN pg_catalog.pg_class cl ON cl.oid=att.attrelid
    JOIN pg_catalog.pg_namespace na ON na.oid=cl.relnamespace
    LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=ty.typelem
    LEFT OUTER JOIN pg_catalog.pg_attrdef def ON adrelid=att.attrelid AND adnum=att.attnum
    LEFT OUTER JOIN (pg_catalog.pg_depend JOIN pg_catalog.pg_class cs ON classid='pg_class'::regclass AND objid=cs.oid AND cs.relkind='S') ON refobjid=att.attrelid AND refobjsubid=att.attnum
    LEFT OUTER JOIN pg_catalog.pg_namespace ns ON ns.oid=cs.relnamespace
    LEFT OUTER JOIN pg_catalog.pg_index pi ON pi.indrelid=att.attrelid AND indisprimary
    LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=att.attrelid AND des.objsubid=att.attnum AND des.classoid='pg_class'::regclass)
    LEFT OUTER JOIN pg_catalog.pg_sequence seq ON cs.oid=seq.seqrelid
WHERE
    att.attrelid = 'public.orders'::regclass::oid
    AND att.attnum > 0
    AND att.attisdropped IS FALSE
ORDER BY att.attnum
;;

-- client: pgadmin (indexes nodes.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT DISTINCT ON(cls.relname) cls.oid, cls.relname as name,
(SELECT (CASE WHEN count(i.inhrelid) > 0 THEN true ELSE false END) FROM pg_inherits i WHERE i.inhrelid = cls.oid) as is_inherited
FROM pg_catalog.pg_index idx
    JOIN pg_catalog.pg_class cls ON cls.oid=indexrelid
    JOIN pg_catalog.pg_class tab ON tab.oid=indrelid
    LEFT OUTER JOIN pg_catalog.pg_tablespace ta on ta.oid=cls.reltablespace
    JOIN pg_catalog.pg_namespace n ON n.oid=tab.relnamespace
    JOIN pg_catalog.pg_am am ON am.oid=cls.relam
    LEFT JOIN pg_catalog.pg_depend dep ON (dep.classid = cls.tableoid AND dep.objid = cls.oid AND dep.refobjsubid = '0' AND dep.refclassid=(SELECT oid FROM pg_catalog.pg_class WHERE relname='pg_constraint') AND dep.deptype='i')
    LEFT OUTER JOIN pg_catalog.pg_constraint con ON (con.tableoid = dep.refclassid AND con.oid = dep.refobjid)
WHERE indrelid = 'public.orders'::regclass::OID
    AND conname is NULL
    ORDER BY cls.relname
;;

-- client: pgadmin (indexes 15_plus properties.sql, did = this database, tid = order_lines)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT DISTINCT ON (cls.relname)
  cls.oid,
  cls.relname AS name,
  idx.indrelid,
  idx.indkey,
  idx.indisclustered,
  idx.indisvalid,
  idx.indisunique,
  idx.indisprimary,
  n.nspname,
  idx.indnatts,
  COALESCE(cls.reltablespace, 0) AS spcoid,
  idx.indnullsnotdistinct,
  COALESCE(
    CASE
          WHEN (cls.reltablespace <> 0 OR cls.relkind = 'I') THEN ta.spcname
          ELSE (
              SELECT sp.spcname
              FROM pg_catalog.pg_database dtb
              JOIN pg_catalog.pg_tablespace sp ON dtb.dattablespace = sp.oid
              WHERE dtb.oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())::oid
              LIMIT 1
          )
      END, 'pg_default'
  ) AS spcname,
  con.conname,
  tab.relname AS tabname,
  idx.indclass,
  con.oid AS conoid,
  CASE
      WHEN con.contype IN ('p', 'u', 'x') THEN desp.description
      ELSE des.description
  END AS description,
  pg_catalog.pg_get_expr(idx.indpred, idx.indrelid, true) AS indconstraint,
  con.contype,
  con.condeferrable,
  con.condeferred,
  am.amname,
  EXISTS (
      SELECT 1 FROM pg_inherits inh WHERE inh.inhrelid = cls.oid
  ) AS is_inherited,
    COALESCE(
        substring(array_to_string(cls.reloptions, ',') FROM 'fillfactor=([0-9]*)')::int,
        CASE am.amname
            WHEN 'btree' THEN 100
            WHEN 'gist' THEN 90
            ELSE NULL
        END
    ) AS fillfactor,
    COALESCE(
        CASE am.amname
            WHEN 'btree' THEN substring(array_to_string(cls.reloptions, ',') FROM 'deduplicate_items=([a-z]*)')::boolean
            ELSE NULL
        END,
        CASE am.amname WHEN 'btree' THEN TRUE ELSE NULL END
    ) AS deduplicate_items,
    COALESCE(
        CASE am.amname
            WHEN 'gin' THEN substring(array_to_string(cls.reloptions, ',') FROM 'gin_pending_list_limit=([0-9]*)')::int
            ELSE NULL
        END,
        CASE am.amname WHEN 'gin' THEN 4096 * 1024 ELSE NULL END
    ) AS gin_pending_list_limit,
    COALESCE(
        CASE am.amname
            WHEN 'brin' THEN substring(array_to_string(cls.reloptions, ',') FROM 'pages_per_range=([0-9]*)')::int
            ELSE NULL
        END,
        CASE am.amname WHEN 'brin' THEN 128 ELSE NULL END
    ) AS pages_per_range,
    COALESCE(
        CASE am.amname
            WHEN 'gist' THEN substring(array_to_string(cls.reloptions, ',') FROM 'buffering=([a-z]*)')
            ELSE NULL
        END,
        CASE am.amname WHEN 'gist' THEN 'auto' ELSE NULL END
    ) AS buffering,
    COALESCE(
        CASE am.amname
            WHEN 'gin' THEN substring(array_to_string(cls.reloptions, ',') FROM 'fastupdate=([a-z]*)')::boolean
            ELSE NULL
        END,
        CASE am.amname WHEN 'gin' THEN TRUE ELSE NULL END
    ) AS fastupdate,
    COALESCE(
        CASE am.amname
            WHEN 'brin' THEN substring(array_to_string(cls.reloptions, ',') FROM 'autosummarize=([a-z]*)')::boolean
            ELSE NULL
        END,
        CASE am.amname WHEN 'brin' THEN FALSE ELSE NULL END
    ) AS autosummarize,
    COALESCE(
        substring(array_to_string(cls.reloptions, ',') FROM 'lists=([0-9]*)')::int,
        NULL
    ) AS lists
FROM pg_catalog.pg_index idx
    JOIN pg_catalog.pg_class cls ON cls.oid = idx.indexrelid
    JOIN pg_catalog.pg_class tab ON tab.oid = idx.indrelid
    LEFT JOIN pg_catalog.pg_tablespace ta ON ta.oid = cls.reltablespace
    JOIN pg_catalog.pg_namespace n ON n.oid = tab.relnamespace
    JOIN pg_catalog.pg_am am ON am.oid = cls.relam
    LEFT JOIN pg_catalog.pg_depend dep ON dep.classid = cls.tableoid
        AND dep.objid = cls.oid
        AND dep.refobjsubid = 0
        AND dep.refclassid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = 'pg_constraint')
        AND dep.deptype = 'i'
    LEFT JOIN pg_catalog.pg_constraint con ON con.tableoid = dep.refclassid AND con.oid = dep.refobjid
    LEFT JOIN pg_catalog.pg_description des ON des.objoid = cls.oid AND des.classoid = 'pg_class'::regclass
    LEFT JOIN pg_catalog.pg_description desp ON desp.objoid = con.oid AND desp.objsubid = 0 AND desp.classoid = 'pg_constraint'::regclass
WHERE idx.indrelid = 'public.order_lines'::regclass::OID
    AND con.conname IS NULL
ORDER BY cls.relname
;;

-- client: pgadmin (check_constraint nodes.sql, tid = customers)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT c.oid, conname as name,
    NOT convalidated as convalidated, conislocal, description as comment
    FROM pg_catalog.pg_constraint c
LEFT OUTER JOIN
    pg_catalog.pg_description des ON (des.objoid=c.oid AND
                           des.classoid='pg_constraint'::regclass)
WHERE contype = 'c'
    AND conrelid = 'public.customers'::regclass::oid
;;

-- client: pgadmin (foreign_key nodes.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT ct.oid,
    conname as name,
    NOT convalidated as convalidated,
    description as comment
FROM pg_catalog.pg_constraint ct
LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=ct.oid AND des.classoid='pg_constraint'::regclass)
WHERE contype='f' AND
    conrelid = 'public.orders'::regclass::oid
ORDER BY conname
;;

-- client: pgadmin (foreign_key properties.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT
      convalidated,
      ct.oid,
      conname as name,
      condeferrable,
      condeferred,
      confupdtype,
      confdeltype,
      CASE confmatchtype
        WHEN 's' THEN FALSE
        WHEN 'f' THEN TRUE
      END AS confmatchtype,
      conkey,
      confkey,
      confrelid,
      nl.nspname as fknsp,
      cl.relname as fktab,
      nr.nspname as refnsp,
      cr.relname as reftab,
      description as comment
FROM pg_constraint ct
JOIN pg_class cl ON cl.oid=conrelid
JOIN pg_namespace nl ON nl.oid=cl.relnamespace
JOIN pg_class cr ON cr.oid=confrelid
JOIN pg_namespace nr ON nr.oid=cr.relnamespace
LEFT OUTER JOIN pg_description des ON (des.objoid=ct.oid AND des.classoid='pg_constraint'::regclass)
WHERE contype='f' AND
conrelid = 'public.orders'::regclass::oid
ORDER BY conname
;;

-- client: pgadmin (foreign_key get_constraint_cols.sql, orders.customer_id -> customers.id)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT a1.attname as conattname,
    a2.attname as confattname
FROM pg_catalog.pg_attribute a1,
    pg_catalog.pg_attribute a2
WHERE a1.attrelid='public.orders'::regclass::oid
    AND a1.attnum=2
    AND a2.attrelid='public.customers'::regclass::oid
    AND a2.attnum=1
;;

-- client: pgadmin (index_constraint nodes.sql, tid = customers, constraint_type = p)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT cls.oid, cls.relname as name,
    CASE contype
        WHEN 'p' THEN desp.description
        WHEN 'u' THEN desp.description
        WHEN 'x' THEN desp.description
        ELSE des.description
    END AS comment
FROM pg_catalog.pg_index idx
JOIN pg_catalog.pg_class cls ON cls.oid=indexrelid
LEFT JOIN pg_catalog.pg_depend dep ON (dep.classid = cls.tableoid AND
                            dep.objid = cls.oid AND
                            dep.refobjsubid = '0' AND
                            dep.refclassid=(SELECT oid
                                            FROM pg_catalog.pg_class
                                            WHERE relname='pg_constraint') AND
                            dep.deptype='i')
LEFT OUTER JOIN pg_catalog.pg_constraint con ON (con.tableoid = dep.refclassid AND
                                      con.oid = dep.refobjid)
LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=cls.oid AND des.classoid='pg_class'::regclass)
LEFT OUTER JOIN pg_catalog.pg_description desp ON (desp.objoid=con.oid AND desp.objsubid = 0 AND desp.classoid='pg_constraint'::regclass)
WHERE indrelid = 'public.customers'::regclass::oid
AND contype='p'
;;

-- client: pgadmin (index_constraint nodes.sql, tid = customers, constraint_type = u)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT cls.oid, cls.relname as name,
    CASE contype
        WHEN 'p' THEN desp.description
        WHEN 'u' THEN desp.description
        WHEN 'x' THEN desp.description
        ELSE des.description
    END AS comment
FROM pg_catalog.pg_index idx
JOIN pg_catalog.pg_class cls ON cls.oid=indexrelid
LEFT JOIN pg_catalog.pg_depend dep ON (dep.classid = cls.tableoid AND
                            dep.objid = cls.oid AND
                            dep.refobjsubid = '0' AND
                            dep.refclassid=(SELECT oid
                                            FROM pg_catalog.pg_class
                                            WHERE relname='pg_constraint') AND
                            dep.deptype='i')
LEFT OUTER JOIN pg_catalog.pg_constraint con ON (con.tableoid = dep.refclassid AND
                                      con.oid = dep.refobjid)
LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=cls.oid AND des.classoid='pg_class'::regclass)
LEFT OUTER JOIN pg_catalog.pg_description desp ON (desp.objoid=con.oid AND desp.objsubid = 0 AND desp.classoid='pg_constraint'::regclass)
WHERE indrelid = 'public.customers'::regclass::oid
AND contype='u'
;;

-- client: pgadmin (views nodes.sql, scid = public)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT
    c.oid,
    c.relname AS name
FROM pg_catalog.pg_class c
WHERE
  c.relkind = 'v'
    AND c.relnamespace = 'public'::regnamespace::oid
ORDER BY
    c.relname
;;

-- client: pgadmin (mviews nodes.sql, scid = public)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT
    c.oid,
    c.relname AS name,
    description AS comment
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=c.oid and des.objsubid=0 AND des.classoid='pg_class'::regclass)
WHERE
  c.relkind = 'm'
    AND c.relnamespace = 'public'::regnamespace::oid
ORDER BY
    c.relname
;;

-- client: dbeaver (column cache for the whole schema)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["2200"]
SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
WHERE NOT a.attisdropped AND c.relnamespace=$1 AND c.relkind not in ('i','c')  ORDER BY a.attnum
;;

-- client: dbeaver (constraint cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["2200"]
SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
WHERE t.relnamespace=$1
ORDER BY c.oid
;;

-- client: dbeaver (index cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["2200"]
-- compare
SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  c.relnamespace=$1 ORDER BY c.relname
;;

-- client: dbeaver (procedures cache)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["2200"]
-- compare
SELECT p.oid,p.*,d.description
FROM pg_catalog.pg_proc p
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=p.oid
WHERE p.pronamespace=$1
ORDER BY p.proname
;;

-- client: pgadmin (mviews 15_plus properties.sql, did = this database, scid = public)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT
    c.oid,
    c.xmin,
    c.relname AS name,
    c.reltablespace AS spcoid,
    c.relispopulated AS with_data,
    CASE WHEN length(spcname::text) > 0 THEN spcname ELSE
        (SELECT sp.spcname FROM pg_catalog.pg_database dtb
        JOIN pg_catalog.pg_tablespace sp ON dtb.dattablespace=sp.oid
        WHERE dtb.oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())::oid)
    END as spcname,
    (SELECT st.setting from pg_catalog.pg_show_all_settings() st
    WHERE st.name = 'default_table_access_method') as default_amname,
    c.relacl,
    nsp.nspname as schema,
    pg_catalog.pg_get_userbyid(c.relowner) AS owner,
    description AS comment,
    (
      SELECT array_agg(DISTINCT e.extname)
      FROM pg_catalog.pg_depend d
      JOIN pg_catalog.pg_extension e ON d.refobjid = e.oid
      WHERE d.objid = c.oid
    ) AS dependsonextensions,
    pg_catalog.pg_get_viewdef(c.oid, true) AS definition,
    pg_catalog.array_to_string(c.relacl::text[], ', ') AS acl,
    (SELECT pg_catalog.array_agg(provider || '=' || label) FROM pg_catalog.pg_seclabels sl1 WHERE sl1.objoid=c.oid AND sl1.objsubid=0) AS seclabels,
    substring(pg_catalog.array_to_string(c.reloptions, ',')
      FROM 'fillfactor=([0-9]*)') AS fillfactor,
    (substring(pg_catalog.array_to_string(c.reloptions, ',') FROM 'autovacuum_enabled=([a-z|0-9]*)'))::BOOL AS autovacuum_enabled,
    substring(pg_catalog.array_to_string(c.reloptions, ',')
      FROM 'autovacuum_vacuum_threshold=([0-9]*)') AS autovacuum_vacuum_threshold,
    (substring(pg_catalog.array_to_string(tst.reloptions, ',') FROM 'autovacuum_enabled=([a-z|0-9]*)'))::BOOL AS toast_autovacuum_enabled,
    c.reloptions AS reloptions, tst.reloptions AS toast_reloptions, am.amname,
    (CASE WHEN c.reltoastrelid = 0 THEN false ELSE true END) AS hastoasttable
FROM
    pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_namespace nsp on nsp.oid = c.relnamespace
LEFT OUTER JOIN pg_catalog.pg_tablespace spc on spc.oid=c.reltablespace
LEFT OUTER JOIN pg_catalog.pg_description des ON (des.objoid=c.oid and des.objsubid=0 AND des.classoid='pg_class'::regclass)
LEFT OUTER JOIN pg_catalog.pg_class tst ON tst.oid = c.reltoastrelid
LEFT OUTER JOIN pg_catalog.pg_am am ON am.oid = c.relam
    WHERE ((c.relhasrules AND (EXISTS (
        SELECT
            r.rulename
        FROM
            pg_catalog.pg_rewrite r
        WHERE
            ((r.ev_class = c.oid)
                AND (pg_catalog.bpchar(r.ev_type) = '1'::bpchar)) )))
            AND (c.relkind = 'm'::char)
          )
    AND c.relnamespace = 'public'::regnamespace::oid
ORDER BY
    c.relname
;;

-- client: pgadmin explain (Query Tool "Explain": sqleditor/sql/13_plus/explain_plan.sql with the default options)
-- from: pgadmin-org/pgadmin4 web/pgadmin/tools/sqleditor
EXPLAIN (FORMAT JSON, ANALYZE false, VERBOSE false, COSTS false, TIMING false, BUFFERS false, SUMMARY false, SETTINGS false, WAL false) SELECT c.name, sum(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.amount > 50 GROUP BY c.name ORDER BY 2 DESC
;;

-- client: pgadmin explain (Query Tool "Explain Analyze" with costs, timing and summary on)
-- from: pgadmin-org/pgadmin4 web/pgadmin/tools/sqleditor
EXPLAIN (FORMAT JSON, ANALYZE true, VERBOSE true, COSTS true, TIMING true, BUFFERS false, SUMMARY true, SETTINGS false, WAL false) SELECT id, name FROM customers WHERE id = 1
;;

-- client: dbeaver explain (PostgreExecutionPlan.getPlanQueryString: XML, costs off)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (PostgreExecutionPlan)
EXPLAIN (FORMAT XML,COSTS FALSE) SELECT o.id, l.qty FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.placed IS NOT NULL
;;

-- client: dbeaver explain (with ANALYZE and VERBOSE checked)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (PostgreExecutionPlan)
EXPLAIN (FORMAT XML,ANALYZE,VERBOSE) SELECT customer_id, count(*) FROM orders GROUP BY customer_id
;;

-- client: dbeaver explain (servers without XML plans: EXPLAIN VERBOSE, parsed by its "->  " indentation)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (PostgreExecutionPlan)
EXPLAIN VERBOSE SELECT * FROM big_orders WHERE customer_id = 1
;;

-- Drivers' and pgAdmin's dashboard queries (asyncpg, Npgsql and pgcli as in
-- their source: asyncpg/introspection.py, Npgsql's PostgresDatabaseInfo.cs,
-- pgcli/pgexecute.py), and the information_schema and statistics views
-- they and other tools read.

-- client: pgadmin dashboard (dashboard_stats.sql: session, tps, ti, to and bio charts of this database)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
/*pga4dash*/
SELECT 'session_stats' AS chart_name, pg_catalog.row_to_json(t) AS chart_data
FROM (SELECT
   (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))) AS "Total",
   (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE state = 'active' AND datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())))  AS "Active",
   (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE state = 'idle' AND datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())))  AS "Idle"
) t
UNION ALL
SELECT 'tps_stats' AS chart_name, pg_catalog.row_to_json(t) AS chart_data
FROM (SELECT
   (SELECT sum(xact_commit) + sum(xact_rollback) FROM pg_catalog.pg_stat_database WHERE datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))) AS "Transactions",
   (SELECT sum(xact_commit) FROM pg_catalog.pg_stat_database WHERE datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))) AS "Commits",
   (SELECT sum(xact_rollback) FROM pg_catalog.pg_stat_database WHERE datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))) AS "Rollbacks"
) t
UNION ALL
SELECT 'ti_stats' AS chart_name, pg_catalog.row_to_json(t) AS chart_data
FROM (SELECT
   (SELECT sum(tup_inserted) FROM pg_catalog.pg_stat_database) AS "Inserts",
   (SELECT sum(tup_updated) FROM pg_catalog.pg_stat_database) AS "Updates",
   (SELECT sum(tup_deleted) FROM pg_catalog.pg_stat_database) AS "Deletes"
) t
UNION ALL
SELECT 'to_stats' AS chart_name, pg_catalog.row_to_json(t) AS chart_data
FROM (SELECT
   (SELECT sum(tup_fetched) FROM pg_catalog.pg_stat_database) AS "Fetched",
   (SELECT sum(tup_returned) FROM pg_catalog.pg_stat_database) AS "Returned"
) t
UNION ALL
SELECT 'bio_stats' AS chart_name, pg_catalog.row_to_json(t) AS chart_data
FROM (SELECT
   (SELECT sum(blks_read) FROM pg_catalog.pg_stat_database) AS "Reads",
   (SELECT sum(blks_hit) FROM pg_catalog.pg_stat_database) AS "Hits"
) t
;;

-- client: pgadmin dashboard (activity.sql, the sessions of this database)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
/*pga4dash*/
SELECT
    pid,
    datname,
    usename,
    application_name,
    client_addr,
    pg_catalog.to_char(backend_start, 'YYYY-MM-DD HH24:MI:SS TZ') AS backend_start,
    state,
    wait_event_type || ': ' || wait_event AS wait_event,
    array_to_string(pg_catalog.pg_blocking_pids(pid), ', ') AS blocking_pids,
    query,
    pg_catalog.to_char(state_change, 'YYYY-MM-DD HH24:MI:SS TZ') AS state_change,
    pg_catalog.to_char(query_start, 'YYYY-MM-DD HH24:MI:SS TZ') AS query_start,
    pg_catalog.to_char(xact_start, 'YYYY-MM-DD HH24:MI:SS TZ') AS xact_start,
    backend_type,
    CASE WHEN state = 'active' THEN ROUND((extract(epoch from now() - query_start) / 60)::numeric, 2) ELSE 0 END AS active_since
FROM
    pg_catalog.pg_stat_activity
WHERE
    datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
ORDER BY pid
;;

-- client: pgadmin dashboard (locks.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
-- compare
/*pga4dash*/
SELECT
    pid,
    locktype,
    datname,
    relation::regclass,
    page,
    tuple,
    virtualxid
    transactionid,
    classid::regclass,
    objid,
    objsubid,
    virtualtransaction,
    mode,
    granted,
    fastpath
FROM
    pg_catalog.pg_locks l
    LEFT OUTER JOIN pg_catalog.pg_database d ON (l.database = d.oid)
WHERE
    datname = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())) AND l.pid <> pg_backend_pid()
ORDER BY
    pid, locktype
;;

-- client: pgadmin dashboard (prepared.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
-- compare
/*pga4dash*/
SELECT
    gid,
    database,
    owner,
    transaction,
    pg_catalog.to_char(prepared, 'YYYY-MM-DD HH24:MI:SS TZ') AS prepared
FROM
    pg_catalog.pg_prepared_xacts
WHERE
    database = (SELECT datname FROM pg_catalog.pg_database WHERE oid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
ORDER BY
    gid, database, owner
;;

-- client: pgadmin dashboard (config.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
/*pga4dash*/
SELECT
    name,
    category,
    setting,
    unit,
    short_desc
FROM
    pg_catalog.pg_show_all_settings()
ORDER BY
    category
;;

-- client: pgadmin dashboard (replication_slots.sql, replication_stats.sql)
-- from: pgadmin-org/pgadmin4 web/pgadmin/dashboard/templates/dashboard/sql
-- compare
/*pga4dash*/
SELECT slot_name, slot_type, active, active_pid, wal_status FROM pg_catalog.pg_replication_slots
UNION ALL
SELECT application_name, state, sync_state = 'sync', pid, client_addr::text FROM pg_catalog.pg_stat_replication
;;

-- client: asyncpg (introspection.py INTRO_LOOKUP_TYPES_13: the types of a statement's columns)
-- from: MagicStack/asyncpg asyncpg/introspection.py
-- params: ["{16,23,1007,25,1043,1700}"]
-- compare
WITH RECURSIVE typeinfo_tree(
    oid, ns, name, kind, basetype, elemtype, elemdelim,
    range_subtype, attrtypoids, attrnames, depth)
AS (
    SELECT
        ti.oid, ti.ns, ti.name, ti.kind, ti.basetype,
        ti.elemtype, ti.elemdelim, ti.range_subtype,
        ti.attrtypoids, ti.attrnames, 0
    FROM
            (
        SELECT
            t.oid                           AS oid,
            ns.nspname                      AS ns,
            t.typname                       AS name,
            t.typtype                       AS kind,
            (CASE WHEN t.typtype = 'd' THEN
                (WITH RECURSIVE typebases(oid, depth) AS (
                    SELECT
                        t2.typbasetype      AS oid,
                        0                   AS depth
                    FROM
                        pg_type t2
                    WHERE
                        t2.oid = t.oid

                    UNION ALL

                    SELECT
                        t2.typbasetype      AS oid,
                        tb.depth + 1        AS depth
                    FROM
                        pg_type t2,
                        typebases tb
                    WHERE
                       tb.oid = t2.oid
                       AND t2.typbasetype != 0
               ) SELECT oid FROM typebases ORDER BY depth DESC LIMIT 1)

               ELSE NULL
            END)                            AS basetype,
            t.typelem                       AS elemtype,
            elem_t.typdelim                 AS elemdelim,
            COALESCE(
                range_t.rngsubtype,
                multirange_t.rngsubtype)    AS range_subtype,
            (CASE WHEN t.typtype = 'c' THEN
                (SELECT
                    array_agg(ia.atttypid ORDER BY ia.attnum)
                FROM
                    pg_attribute ia
                    INNER JOIN pg_class c
                        ON (ia.attrelid = c.oid)
                WHERE
                    ia.attnum > 0 AND NOT ia.attisdropped
                    AND c.reltype = t.oid)

                ELSE NULL
            END)                            AS attrtypoids,
            (CASE WHEN t.typtype = 'c' THEN
                (SELECT
                    array_agg(ia.attname::text ORDER BY ia.attnum)
                FROM
                    pg_attribute ia
                    INNER JOIN pg_class c
                        ON (ia.attrelid = c.oid)
                WHERE
                    ia.attnum > 0 AND NOT ia.attisdropped
                    AND c.reltype = t.oid)

                ELSE NULL
            END)                            AS attrnames
        FROM
            pg_catalog.pg_type AS t
            INNER JOIN pg_catalog.pg_namespace ns ON (
                ns.oid = t.typnamespace)
            LEFT JOIN pg_type elem_t ON (
                t.typlen = -1 AND
                t.typelem != 0 AND
                t.typelem = elem_t.oid
            )
            LEFT JOIN pg_range range_t ON (
                t.oid = range_t.rngtypid
            )
            LEFT JOIN pg_range multirange_t ON (
                t.oid = multirange_t.rngmultitypid
            )
    )
 AS ti
    WHERE
        ti.oid = any($1::oid[])

    UNION ALL

    SELECT
        ti.oid, ti.ns, ti.name, ti.kind, ti.basetype,
        ti.elemtype, ti.elemdelim, ti.range_subtype,
        ti.attrtypoids, ti.attrnames, tt.depth + 1
    FROM
            (
        SELECT
            t.oid                           AS oid,
            ns.nspname                      AS ns,
            t.typname                       AS name,
            t.typtype                       AS kind,
            (CASE WHEN t.typtype = 'd' THEN
                (WITH RECURSIVE typebases(oid, depth) AS (
                    SELECT
                        t2.typbasetype      AS oid,
                        0                   AS depth
                    FROM
                        pg_type t2
                    WHERE
                        t2.oid = t.oid

                    UNION ALL

                    SELECT
                        t2.typbasetype      AS oid,
                        tb.depth + 1        AS depth
                    FROM
                        pg_type t2,
                        typebases tb
                    WHERE
                       tb.oid = t2.oid
                       AND t2.typbasetype != 0
               ) SELECT oid FROM typebases ORDER BY depth DESC LIMIT 1)

               ELSE NULL
            END)                            AS basetype,
            t.typelem                       AS elemtype,
            elem_t.typdelim                 AS elemdelim,
            COALESCE(
                range_t.rngsubtype,
                multirange_t.rngsubtype)    AS range_subtype,
            (CASE WHEN t.typtype = 'c' THEN
                (SELECT
                    array_agg(ia.atttypid ORDER BY ia.attnum)
                FROM
                    pg_attribute ia
                    INNER JOIN pg_class c
                        ON (ia.attrelid = c.oid)
                WHERE
                    ia.attnum > 0 AND NOT ia.attisdropped
                    AND c.reltype = t.oid)

                ELSE NULL
            END)                            AS attrtypoids,
            (CASE WHEN t.typtype = 'c' THEN
                (SELECT
                    array_agg(ia.attname::text ORDER BY ia.attnum)
                FROM
                    pg_attribute ia
                    INNER JOIN pg_class c
                        ON (ia.attrelid = c.oid)
                WHERE
                    ia.attnum > 0 AND NOT ia.attisdropped
                    AND c.reltype = t.oid)

                ELSE NULL
            END)                            AS attrnames
        FROM
            pg_catalog.pg_type AS t
            INNER JOIN pg_catalog.pg_namespace ns ON (
                ns.oid = t.typnamespace)
            LEFT JOIN pg_type elem_t ON (
                t.typlen = -1 AND
                t.typelem != 0 AND
                t.typelem = elem_t.oid
            )
            LEFT JOIN pg_range range_t ON (
                t.oid = range_t.rngtypid
            )
            LEFT JOIN pg_range multirange_t ON (
                t.oid = multirange_t.rngmultitypid
            )
    )
 ti,
        typeinfo_tree tt
    WHERE
        (tt.elemtype IS NOT NULL AND ti.oid = tt.elemtype)
        OR (tt.attrtypoids IS NOT NULL AND ti.oid = any(tt.attrtypoids))
        OR (tt.range_subtype IS NOT NULL AND ti.oid = tt.range_subtype)
        OR (tt.basetype IS NOT NULL AND ti.oid = tt.basetype)
)

SELECT DISTINCT
    *,
    basetype::regtype::text AS basetype_name,
    elemtype::regtype::text AS elemtype_name,
    range_subtype::regtype::text AS range_subtype_name
FROM
    typeinfo_tree
ORDER BY
    depth DESC
;;

-- client: npgsql (PostgresDatabaseInfo GenerateLoadTypesQuery, ranges and multiranges, type categories)
-- from: npgsql/npgsql src/Npgsql/PostgresDatabaseInfo.cs
SELECT ns.nspname, t.oid, t.typname, t.typtype, t.typnotnull, t.elemtypoid
FROM (
    -- Arrays have typtype=b - this subquery identifies them by their typreceive and converts their typtype to a
    -- We first do this for the type (innerest-most subquery), and then for its element type
    -- This also returns the array element, range subtype and domain base type as elemtypoid
    SELECT
        typ.oid, typ.typnamespace, typ.typname, typ.typtype, typ.typrelid, typ.typnotnull, typ.relkind,
        elemtyp.oid AS elemtypoid, elemtyp.typname AS elemtypname, elemcls.relkind AS elemrelkind,
        CASE WHEN elemproc.proname='array_recv' THEN 'a' ELSE elemtyp.typtype END AS elemtyptype
        , typ.typcategory
    FROM (
        SELECT typ.oid, typnamespace, typname, typrelid, typnotnull, relkind, typelem AS elemoid,
            CASE WHEN proc.proname='array_recv' THEN 'a' ELSE typ.typtype END AS typtype,
            CASE
                WHEN proc.proname='array_recv' THEN typ.typelem
                WHEN typ.typtype='r' THEN rngsubtype
                WHEN typ.typtype='m' THEN (SELECT rngtypid FROM pg_range WHERE rngmultitypid = typ.oid)
                WHEN typ.typtype='d' THEN typ.typbasetype
            END AS elemtypoid
            , typ.typcategory
        FROM pg_type AS typ
        LEFT JOIN pg_class AS cls ON (cls.oid = typ.typrelid)
        LEFT JOIN pg_proc AS proc ON proc.oid = typ.typreceive
        LEFT JOIN pg_range ON (pg_range.rngtypid = typ.oid)
    ) AS typ
    LEFT JOIN pg_type AS elemtyp ON elemtyp.oid = elemtypoid
    LEFT JOIN pg_class AS elemcls ON (elemcls.oid = elemtyp.typrelid)
    LEFT JOIN pg_proc AS elemproc ON elemproc.oid = elemtyp.typreceive
) AS t
JOIN pg_namespace AS ns ON (ns.oid = typnamespace)
WHERE
    
    (typtype IN ('b', 'r', 'm', 'e', 'd') OR -- Base, range, multirange, enum, domain
    (typtype = 'c' AND relkind='c') OR -- User-defined free-standing composites (not table composites) by default
    (typtype = 'p' AND typname IN ('record', 'void', 'unknown')) OR -- Some special supported pseudo-types
    (typtype = 'a' AND (  -- Array of...
        elemtyptype IN ('b', 'r', 'm', 'e', 'd') OR -- Array of base, range, multirange, enum, domain
        (elemtyptype = 'p' AND elemtypname IN ('record', 'void')) OR -- Arrays of special supported pseudo-types
        (elemtyptype = 'c' AND elemrelkind='c') -- Array of user-defined free-standing composites (not table composites) by default
    )))
ORDER BY CASE
       WHEN typtype IN ('b', 'e', 'p') THEN 0           -- First base types, enums, pseudo-types
       WHEN typtype = 'c' THEN 1                        -- Composites after (fields loaded later in 2nd pass)
       WHEN typtype = 'r' THEN 2                        -- Ranges after
       WHEN typtype = 'm' THEN 3                        -- Multiranges after
       WHEN typtype = 'd' AND elemtyptype <> 'a' THEN 4 -- Domains over non-arrays after
       WHEN typtype = 'a' THEN 5                        -- Arrays after
       WHEN typtype = 'd' AND elemtyptype = 'a' THEN 6  -- Domains over arrays last
END
;;

-- client: npgsql (GenerateLoadCompositeTypesQuery)
-- from: npgsql/npgsql src/Npgsql/PostgresDatabaseInfo.cs
-- compare
-- Load field definitions for (free-standing) composite types
SELECT typ.oid, att.attname, att.atttypid
FROM pg_type AS typ
JOIN pg_namespace AS ns ON (ns.oid = typ.typnamespace)
JOIN pg_class AS cls ON (cls.oid = typ.typrelid)
JOIN pg_attribute AS att ON (att.attrelid = typ.typrelid)
WHERE
  (typ.typtype = 'c' AND cls.relkind='c') AND
  
  attnum > 0 AND     -- Don't load system attributes
  NOT attisdropped
ORDER BY typ.oid, att.attnum
;;

-- client: npgsql (GenerateLoadEnumFieldsQuery)
-- from: npgsql/npgsql src/Npgsql/PostgresDatabaseInfo.cs
-- compare
-- Load enum fields
SELECT typ.oid, enumlabel
FROM pg_enum
JOIN pg_type AS typ ON typ.oid = enumtypid
JOIN pg_namespace AS ns ON ns.oid = typ.typnamespace

ORDER BY oid, enumsortorder
;;

-- client: pgcli (search_path_query)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT * FROM unnest(current_schemas(true))
;;

-- client: pgcli (tables_query, kinds r, p, f)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT  n.nspname schema_name,
                c.relname table_name
        FROM    pg_catalog.pg_class c
                LEFT JOIN pg_catalog.pg_namespace n
                    ON n.oid = c.relnamespace
        WHERE   c.relkind = ANY(ARRAY['r','p','f'])
        ORDER BY 1,2
;;

-- client: pgcli (view_definition_query)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
WITH v AS (SELECT 'big_orders'::pg_catalog.regclass::pg_catalog.oid AS v_oid)
        SELECT nspname, relname, relkind,
               pg_catalog.pg_get_viewdef(c.oid, true),
               array_remove(array_remove(c.reloptions,'check_option=local'),
                            'check_option=cascaded') AS reloptions,
               CASE
                 WHEN 'check_option=local' = ANY (c.reloptions) THEN 'LOCAL'::text
                 WHEN 'check_option=cascaded' = ANY (c.reloptions) THEN 'CASCADED'::text
                 ELSE NULL
               END AS checkoption
        FROM pg_catalog.pg_class c
        LEFT JOIN pg_catalog.pg_namespace n ON (c.relnamespace = n.oid)
        JOIN v ON (c.oid = v.v_oid)
;;

-- client: pgcli (columns_query, kinds v and m, schema public)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT  nsp.nspname schema_name,
                        cls.relname table_name,
                        att.attname column_name,
                        att.atttypid::regtype::text type_name,
                        att.atthasdef AS has_default,
                        pg_catalog.pg_get_expr(def.adbin, def.adrelid, true) as default
                FROM    pg_catalog.pg_attribute att
                        INNER JOIN pg_catalog.pg_class cls
                            ON att.attrelid = cls.oid
                        INNER JOIN pg_catalog.pg_namespace nsp
                            ON cls.relnamespace = nsp.oid
                        LEFT OUTER JOIN pg_attrdef def
                            ON def.adrelid = att.attrelid
                            AND def.adnum = att.attnum
                WHERE   cls.relkind = ANY(ARRAY['v','m']) AND nsp.nspname = 'public'
                        AND NOT att.attisdropped
                        AND att.attnum  > 0
                ORDER BY 1, 2, att.attnum
;;

-- client: pgcli (foreignkeys)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT s_p.nspname AS parentschema,
                       t_p.relname AS parenttable,
                       unnest((
                        select
                            array_agg(attname ORDER BY i)
                        from
                            (select unnest(confkey) as attnum, generate_subscripts(confkey, 1) as i) x
                            JOIN pg_catalog.pg_attribute c USING(attnum)
                            WHERE c.attrelid = fk.confrelid
                        )) AS parentcolumn,
                       s_c.nspname AS childschema,
                       t_c.relname AS childtable,
                       unnest((
                        select
                            array_agg(attname ORDER BY i)
                        from
                            (select unnest(conkey) as attnum, generate_subscripts(conkey, 1) as i) x
                            JOIN pg_catalog.pg_attribute c USING(attnum)
                            WHERE c.attrelid = fk.conrelid
                        )) AS childcolumn
                FROM pg_catalog.pg_constraint fk
                JOIN pg_catalog.pg_class      t_p ON t_p.oid = fk.confrelid
                JOIN pg_catalog.pg_namespace  s_p ON s_p.oid = t_p.relnamespace
                JOIN pg_catalog.pg_class      t_c ON t_c.oid = fk.conrelid
                JOIN pg_catalog.pg_namespace  s_c ON s_c.oid = t_c.relnamespace
                WHERE fk.contype = 'f'
;;

-- client: pgcli (datatypes, PostgreSQL 9.2 and later)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT n.nspname schema_name,
                           t.typname type_name
                    FROM   pg_catalog.pg_type t
                           INNER JOIN pg_catalog.pg_namespace n
                              ON n.oid = t.typnamespace
                    WHERE ( t.typrelid = 0  -- non-composite types
                            OR (  -- composite type, but not a table
                                  SELECT c.relkind = 'c'
                                  FROM pg_catalog.pg_class c
                                  WHERE c.oid = t.typrelid
                                )
                          )
                          AND NOT EXISTS( -- ignore array types
                                SELECT  1
                                FROM    pg_catalog.pg_type el
                                WHERE   el.oid = t.typelem AND el.typarray = t.oid
                              )
                          AND n.nspname <> 'pg_catalog'
                          AND n.nspname <> 'information_schema'
                    ORDER BY 1, 2
;;

-- client: pgcli (functions, PostgreSQL 11 and later: schema public)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
SELECT n.nspname schema_name,
                        p.proname func_name,
                        p.proargnames,
                        COALESCE(proallargtypes::regtype[], proargtypes::regtype[])::text[],
                        p.proargmodes,
                        prorettype::regtype::text return_type,
                        p.prokind = 'a' is_aggregate,
                        p.prokind = 'w' is_window,
                        p.proretset is_set_returning,
                        d.deptype = 'e' is_extension,
                        pg_get_expr(proargdefaults, 0) AS arg_defaults
                FROM pg_catalog.pg_proc p
                        INNER JOIN pg_catalog.pg_namespace n
                            ON n.oid = p.pronamespace
                LEFT JOIN pg_depend d ON d.objid = p.oid and d.deptype = 'e'
                WHERE p.prorettype::regtype != 'trigger'::regtype AND n.nspname = 'public'
                ORDER BY 1, 2
;;

-- client: information_schema (CHECK constraints other than NOT NULL)
-- from: PostgreSQL 15's information_schema views as the tools above read them (written for this corpus)
-- compare
SELECT constraint_schema, constraint_name, check_clause FROM information_schema.check_constraints WHERE constraint_schema = 'public' AND constraint_name NOT LIKE '%_not_null'
;;

-- client: information_schema (NOT NULL constraints as CHECK, as PostgreSQL 15 lists them)
-- from: PostgreSQL 15's information_schema views as the tools above read them (written for this corpus)
-- compare
SELECT tc.table_name, cc.check_clause, tc.constraint_type FROM information_schema.check_constraints cc JOIN information_schema.table_constraints tc USING (constraint_schema, constraint_name) WHERE cc.constraint_schema = 'public' AND cc.constraint_name LIKE '%_not_null'
;;

-- client: information_schema (constraint_column_usage, constraint_table_usage)
-- from: PostgreSQL 15's information_schema views as the tools above read them (written for this corpus)
-- compare
SELECT 'column' AS kind, table_name, column_name, constraint_name FROM information_schema.constraint_column_usage WHERE table_schema = 'public' UNION ALL SELECT 'table', table_name, NULL, constraint_name FROM information_schema.constraint_table_usage WHERE table_schema = 'public'
;;

-- client: information_schema (catalog name, enabled roles)
-- from: PostgreSQL 15's information_schema views as the tools above read them (written for this corpus)
-- compare
SELECT catalog_name = current_database() AS this_database, current_user = ANY (SELECT role_name FROM information_schema.enabled_roles) AS enabled FROM information_schema.information_schema_catalog_name
;;

-- client: pg_catalog statistics (per-table views over schema.sql)
-- from: the statistics views pgAdmin's and DBeaver's panels read (written for this corpus)
-- compare
SELECT 'all' AS v, relname FROM pg_stat_all_tables WHERE schemaname = 'public' UNION ALL SELECT 'xact', relname FROM pg_stat_xact_user_tables UNION ALL SELECT 'statio', relname FROM pg_statio_user_tables UNION ALL SELECT 'seq', relname FROM pg_statio_user_sequences
;;

-- client: pg_catalog statistics (pg_stat_ssl and pg_stat_gssapi of this plaintext connection)
-- from: the statistics views pgAdmin's and DBeaver's panels read (written for this corpus)
-- compare
SELECT s.ssl, s.version, g.gss_authenticated, g.encrypted FROM pg_stat_ssl s JOIN pg_stat_gssapi g USING (pid) WHERE pid = pg_backend_pid()
;;

-- client: pgcli (keywords from the bodies of SQL functions: a set-returning function in GROUP BY)
-- from: dbcli/pgcli pgcli/pgexecute.py
-- compare
WITH Words AS (
                SELECT regexp_split_to_table(prosrc, '\W+') AS Word, COUNT(1)
                FROM pg_catalog.pg_proc P
                JOIN pg_catalog.pg_namespace N ON N.oid = P.pronamespace
                JOIN pg_catalog.pg_language L ON L.oid = P.prolang
                WHERE L.lanname IN ('sql', 'plpgsql')
                AND N.nspname NOT IN ('pg_catalog', 'information_schema')
                GROUP BY Word
            ),
            OrderWords AS (
                SELECT Word,
                    ROW_NUMBER() OVER(PARTITION BY LOWER(Word) ORDER BY Count DESC)
                FROM Words
                WHERE Word ~* '.*[a-z].*'
            ),
            Names AS (
                --Column names
                SELECT attname AS Name
                FROM pg_catalog.pg_attribute
                UNION -- Table/view names
                SELECT relname
                FROM pg_catalog.pg_class
                UNION -- Function names
                SELECT proname
                FROM pg_catalog.pg_proc
                UNION -- Type names
                SELECT typname
                FROM pg_catalog.pg_type
                UNION -- Schema names
                SELECT nspname
                FROM pg_catalog.pg_namespace
                UNION -- Parameter names
                SELECT unnest(proargnames)
                FROM pg_proc
            )
            SELECT Word
            FROM OrderWords
            WHERE LOWER(Word) IN (SELECT Name FROM Names)
            AND Row_Number = 1
;;

-- client: dbeaver (data type cache of pg_catalog: PostgreDataTypeCache.prepareObjectsStatement)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["11"]
SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description
FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem 
LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname IS NOT NULL
AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C')
AND t.typnamespace=$1::oid 
;;

-- client: dbeaver (resolve a data type by name: PostgreDataTypeCache.resolveDataType)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["int4"]
-- compare
SELECT t.oid,t.*,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_class c ON c.oid=t.typrelid
WHERE t.typname=$1 
;;

-- client: dbeaver (resolve a data type by OID)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["1043"]
-- compare
SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_class c ON c.oid=t.typrelid
WHERE t.oid=$1::oid 
;;

-- client: dbeaver (encodings)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT c.contoencoding as encid,pg_catalog.pg_encoding_to_char(c.contoencoding) as encname FROM pg_catalog.pg_conversion c GROUP BY c.contoencoding ORDER BY 2
;;

-- client: dbeaver (transaction isolation of a new connection)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SHOW TRANSACTION ISOLATION LEVEL
;;

-- client: dbeaver (roles with their descriptions)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT a.oid,a.*,pd.description FROM pg_catalog.pg_roles a left join pg_catalog.pg_shdescription pd on a.oid = pd.objoid ORDER BY a.rolname
;;

-- client: dbeaver (database by name)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=current_database()
;;

-- client: dbeaver (database description)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
select description from pg_shdescription join pg_database on objoid = pg_database.oid where datname = current_database()
;;

-- client: dbeaver (tablespaces)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SELECT t.oid,t.*,pg_tablespace_location(t.oid) loc FROM pg_catalog.pg_tablespace t ORDER BY t.oid
;;

-- client: dbeaver (table cache with dependent sequences, schema public)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key , dep.objid, dep.refobjsubid
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
LEFT OUTER JOIN pg_depend dep on dep.refobjid = c."oid" AND dep.deptype = 'i' and dep.refobjsubid <> 0 and dep.classid = dep.refclassid
WHERE c.relnamespace=2200 AND c.relkind not in ('i','I','c')
;;

-- client: dbeaver (table statistics of schema public)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
select c.relname,pg_catalog.pg_total_relation_size(c.oid) >= 0 as total_rel_size,pg_catalog.pg_relation_size(c.oid) >= 0 as rel_size FROM pg_class c WHERE c.relnamespace=2200 ORDER BY 1
;;

-- client: dbeaver (parents of table orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SELECT i.*,c.relnamespace FROM pg_catalog.pg_inherits i,pg_catalog.pg_class c WHERE i.inhrelid='orders'::regclass AND c.oid=i.inhparent ORDER BY i.inhseqno
;;

-- client: dbeaver (rules of view big_orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SELECT r.oid,r.*, pg_get_ruledef(r.oid) AS definition FROM pg_rewrite r WHERE r.ev_class='big_orders'::regclass AND r.rulename <> '_RETURN'::name
;;

-- client: dbeaver (policies of table orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
select * from pg_catalog.pg_policies where schemaname='public' and tablename='orders'
;;

-- client: dbeaver (constraints of table orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.contype='c' then "substring"(pg_get_constraintdef(c.oid), 7) else null end consrc_copy FROM pg_catalog.pg_constraint c INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass WHERE c.conrelid='orders'::regclass ORDER BY c.oid
;;

-- client: dbeaver (schemas of the foreign keys referencing customers)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SELECT DISTINCT connamespace FROM pg_catalog.pg_constraint WHERE confrelid='customers'::regclass
;;

-- client: dbeaver (indexes of table orders, with their sizes and scans)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans FROM pg_catalog.pg_index i INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid WHERE i.indrelid='orders'::regclass ORDER BY c.relname
;;

-- client: dbeaver (triggers of table orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- compare
SELECT x.oid,x.*,p.pronamespace as func_schema_id,d.description FROM pg_catalog.pg_trigger x LEFT OUTER JOIN pg_catalog.pg_proc p ON p.oid=x.tgfoid LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=x.oid AND d.objsubid=0 WHERE x.tgrelid = 'orders'::regclass AND NOT x.tgisinternal
;;

-- client: dbeaver (dependencies of table orders)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
SELECT DISTINCT dep.deptype, dep.classid, dep.objid, cl.relkind, attr.attname,pg_get_expr(ad.adbin, ad.adrelid) adefval,
    CASE WHEN cl.relkind IS NOT NULL THEN cl.relkind::text || COALESCE(dep.objsubid::text, '')::text
        WHEN tg.oid IS NOT NULL THEN 'T'::text
        WHEN ty.oid IS NOT NULL THEN 'y'::text
        WHEN ns.oid IS NOT NULL THEN 'n'::text
        WHEN pr.oid IS NOT NULL THEN 'p'::text
        WHEN la.oid IS NOT NULL THEN 'l'::text
        WHEN rw.oid IS NOT NULL THEN 'R'::text
        WHEN co.oid IS NOT NULL THEN 'C'::text || contype::text
        WHEN ad.oid IS NOT NULL THEN 'A'::text
        ELSE ''
    END AS type,
    COALESCE(coc.relname, clrw.relname, tgr.relname) AS ownertable,
    CASE WHEN cl.relname IS NOT NULL AND att.attname IS NOT NULL THEN cl.relname || '.' || att.attname
    ELSE COALESCE(cl.relname, co.conname, pr.proname, tg.tgname, ty.typname, la.lanname, rw.rulename, ns.nspname)
    END AS refname,
    COALESCE(nsc.nspname, nso.nspname, nsp.nspname, nst.nspname, nsrw.nspname, tgrn.nspname) AS nspname
FROM pg_depend dep
LEFT JOIN pg_class cl ON dep.objid=cl.oid
LEFT JOIN pg_attribute att ON dep.objid=att.attrelid AND dep.objsubid=att.attnum
LEFT JOIN pg_namespace nsc ON cl.relnamespace=nsc.oid
LEFT JOIN pg_proc pr ON dep.objid=pr.oid
LEFT JOIN pg_namespace nsp ON pr.pronamespace=nsp.oid
LEFT JOIN pg_trigger tg ON dep.objid=tg.oid
LEFT JOIN pg_class tgr ON tg.tgrelid=tgr.oid
LEFT JOIN pg_namespace tgrn ON tgr.relnamespace=tgrn.oid
LEFT JOIN pg_type ty ON dep.objid=ty.oid
LEFT JOIN pg_namespace nst ON ty.typnamespace=nst.oid
LEFT JOIN pg_constraint co ON dep.objid=co.oid
LEFT JOIN pg_class coc ON co.conrelid=coc.oid
LEFT JOIN pg_namespace nso ON co.connamespace=nso.oid
LEFT JOIN pg_rewrite rw ON dep.objid=rw.oid
LEFT JOIN pg_class clrw ON clrw.oid=rw.ev_class
LEFT JOIN pg_namespace nsrw ON clrw.relnamespace=nsrw.oid
LEFT JOIN pg_language la ON dep.objid=la.oid
LEFT JOIN pg_namespace ns ON dep.objid=ns.oid
LEFT JOIN pg_attrdef ad ON ad.oid=dep.objid
LEFT JOIN pg_attribute attr ON attr.attrelid=ad.adrelid and attr.attnum=ad.adnum
WHERE dep.refobjid='orders'::regclass
ORDER BY type
;;

-- client: pg_catalog statistics (activity counters of schema.sql's tables after its inserts)
-- from: the statistics views pgAdmin's and DBeaver's panels read (written for this corpus)
-- compare
SELECT relname, n_tup_upd, n_tup_del, n_dead_tup, idx_scan IS NULL AS no_index FROM pg_stat_user_tables ORDER BY relname
;;

-- client: pg_catalog statistics (time zones: pgAdmin's and DBeaver's time zone pickers)
-- from: the statistics views pgAdmin's and DBeaver's panels read (written for this corpus)
-- compare
SELECT name, abbrev, utc_offset, is_dst FROM pg_timezone_names WHERE name IN ('UTC', 'Asia/Tokyo', 'Asia/Kolkata') ORDER BY name
;;

-- client: datagrip (connection setup, as logged in datafusion-postgres issue 165)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
select current_database() as a, current_schemas(false) as b
;;

-- client: datagrip (connection setup)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
-- compare
SHOW TRANSACTION ISOLATION LEVEL
;;

-- client: datagrip (connection setup)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
select current_database(), current_schema(), current_user
;;

-- client: datagrip (schema introspection, as quoted in risingwave issue 14224 and doltgresql issue 791: oid::bigint, xmin)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
select N.oid::bigint as id,
       N.xmin as state_number,
       nspname as name,
       D.description,
       pg_catalog.pg_get_userbyid(N.nspowner) as "owner"
from pg_catalog.pg_namespace N
  left join pg_catalog.pg_description D on N.oid = D.objoid
order by case when nspname = pg_catalog.current_schema() then -1::bigint else N.oid::bigint end
;;

-- client: datagrip (JetBrains' generic metadata: usage privileges, as listed in ydb issue 1737)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
select distinct PRIVILEGE_TYPE as PRIVILEGE_NAME from INFORMATION_SCHEMA.USAGE_PRIVILEGES order by PRIVILEGE_TYPE asc
;;

-- client: datagrip (JetBrains' generic metadata: character sets)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
-- compare
select CHARACTER_SET_NAME as CHARSET_NAME, CHARACTER_SET_NAME as DISPLAY_NAME, 'N' as IS_DEPRECATED, -1 as MAX_LENGTH from INFORMATION_SCHEMA.CHARACTER_SETS order by CHARACTER_SET_NAME asc
;;

-- client: datagrip (JetBrains' generic metadata: routines with their parameters)
-- from: JetBrains DataGrip (closed source): the query as quoted in the public issue named
-- compare
select r.routine_name, r.data_type, p.ordinal_position, p.data_type as parameter_type
from information_schema.routines r join information_schema.parameters p using (specific_catalog, specific_schema, specific_name)
where r.routine_schema = 'pg_catalog' and r.routine_name in ('int4pl', 'texteq')
order by 1, 3
;;

-- client: dbeaver (table inheritance of schema public: PostgreSchema.cacheTableInheritance)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- params: ["2200"]
-- compare
SELECT i.inhrelid relid, pc.relnamespace parent_ns, pc.oid parent_oid, i.inhseqno
FROM pg_catalog.pg_inherits i, pg_class rc, pg_class pc
WHERE rc.oid=i.inhrelid AND rc.relnamespace=$1::oid AND pc.oid=i.inhparent
;;

-- client: dbeaver (children of table customers: PostgreTable.getSubInheritance)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (the model caches named)
-- param-sql: 'customers'::regclass::oid
-- compare
SELECT i.*,c.relnamespace FROM pg_catalog.pg_inherits i,pg_catalog.pg_class c WHERE i.inhparent=? AND c.oid=i.inhrelid
;;

-- client: dbeaver (dashboard "Server sessions")
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (plugin.xml, dashboard postgresql.sessionCount)
SELECT
    (SELECT count(*) AS "Active" FROM pg_catalog.pg_stat_activity sa WHERE state='active'),
    (SELECT count(*) AS "Idle" FROM pg_catalog.pg_stat_activity sa WHERE state='idle'),
    (SELECT count(*) AS "Total" FROM pg_catalog.pg_stat_activity sa WHERE state IS NOT NULL)
;;

-- client: dbeaver (session manager: PostgreSessionManager)
-- from: dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (model/session/PostgreSessionManager)
SELECT sa.* FROM pg_catalog.pg_stat_activity sa
;;

-- client: pgadmin (tables stats.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT
    seq_scan AS "Sequential scans",
    seq_tup_read AS "Sequential tuples read",
    idx_scan AS "Index scans",
    idx_tup_fetch AS "Index tuples fetched",
    n_tup_ins AS "Tuples inserted",
    n_tup_upd AS "Tuples updated",
    n_tup_del AS "Tuples deleted",
    n_tup_hot_upd AS "Tuples HOT updated",
    n_live_tup AS "Live tuples",
    n_dead_tup AS "Dead tuples",
    heap_blks_read AS "Heap blocks read",
    heap_blks_hit AS "Heap blocks hit",
    idx_blks_read AS "Index blocks read",
    idx_blks_hit AS "Index blocks hit",
    toast_blks_read AS "Toast blocks read",
    toast_blks_hit AS "Toast blocks hit",
    tidx_blks_read AS "Toast index blocks read",
    tidx_blks_hit AS "Toast index blocks hit",
    last_vacuum AS "Last vacuum",
    last_autovacuum AS "Last autovacuum",
    last_analyze AS "Last analyze",
    last_autoanalyze AS "Last autoanalyze",
    pg_catalog.pg_relation_size(stat.relid) AS "Table size",
    CASE WHEN cl.reltoastrelid = 0 THEN NULL ELSE pg_catalog.pg_size_pretty(pg_catalog.pg_relation_size(cl.reltoastrelid)
        + COALESCE((SELECT SUM(pg_catalog.pg_relation_size(indexrelid))
                        FROM pg_catalog.pg_index WHERE indrelid=cl.reltoastrelid)::int8, 0))
        END AS "Toast table size",
    COALESCE((SELECT SUM(pg_catalog.pg_relation_size(indexrelid))
                                FROM pg_catalog.pg_index WHERE indrelid=stat.relid)::int8, 0)
        AS "Indexes size"
FROM
    pg_catalog.pg_stat_all_tables stat
JOIN
    pg_catalog.pg_statio_all_tables statio ON stat.relid = statio.relid
JOIN
    pg_catalog.pg_class cl ON cl.oid=stat.relid
WHERE
    stat.relid = 'orders'::regclass::oid
;;

-- client: pgadmin (indexes stats.sql, idx = orders_placed_idx)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
-- ignore: Index blocks read, Index blocks hit, Index size
SELECT
    idx_scan AS "Index scans",
    idx_tup_read AS "Index tuples read",
    idx_tup_fetch AS "Index tuples fetched",
    idx_blks_read AS "Index blocks read",
    idx_blks_hit AS "Index blocks hit",
    pg_catalog.pg_relation_size('orders_placed_idx'::regclass::OID) AS "Index size"
FROM
    pg_catalog.pg_stat_all_indexes stat
    JOIN pg_catalog.pg_statio_all_indexes statio ON stat.indexrelid = statio.indexrelid
    JOIN pg_catalog.pg_class cl ON cl.oid=stat.indexrelid
    WHERE stat.indexrelid = 'orders_placed_idx'::regclass::OID
;;

-- client: pgadmin (mviews stats.sql, vid = customer_totals)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
SELECT
    seq_scan AS "Sequential scans",
    n_live_tup AS "Live tuples",
    heap_blks_read AS "Heap blocks read",
    heap_blks_hit AS "Heap blocks hit",
    last_autoanalyze AS "Last autoanalyze",
    COALESCE((SELECT SUM(pg_catalog.pg_relation_size(indexrelid))
                                FROM pg_catalog.pg_index WHERE indrelid=stat.relid)::int8, 0)
        AS "Indexes size"
FROM
    pg_catalog.pg_stat_all_tables stat
JOIN
    pg_catalog.pg_statio_all_tables statio ON stat.relid = statio.relid
JOIN
    pg_catalog.pg_class cl ON cl.oid=stat.relid
WHERE
    stat.relid = 'customer_totals'::regclass::oid
;;

-- client: pgadmin (row_security_policies nodes.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT
    pl.oid AS oid,
    pl.polname AS name
FROM
    pg_catalog.pg_policy pl
WHERE
    pl.polrelid	 = 'orders'::regclass
ORDER BY
    pl.polname
;;

-- client: pgadmin (row_security_policies count.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT COUNT(*)
FROM
    pg_catalog.pg_policy pl
WHERE
    pl.polrelid	 = 'orders'::regclass
;;

-- client: pgadmin (row_security_policies properties.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT
    pl.oid AS oid,
    pl.polname AS name,
    rw.cmd AS event,
    rw.qual AS using,
    rw.qual AS using_orig,
    rw.with_check AS withcheck,
    rw.with_check AS withcheck_orig,
    array_to_string(rw.roles::name[], ', ') AS policyowner
FROM
    pg_policy pl
JOIN pg_policies rw ON pl.polname=rw.policyname
JOIN pg_namespace n ON n.nspname=rw.schemaname
WHERE
      pl.polrelid = 'orders'::regclass
;;

-- client: pgadmin (columns get_inherited_tables.sql, tid = orders)
-- from: pgadmin-org/pgadmin4 web/pgadmin/browser/server_groups/servers/databases (the template named)
-- compare
SELECT pg_catalog.array_to_string(pg_catalog.array_agg(inhrelname), ', ') inhrelname, attrname
FROM
 (SELECT
   inhparent::regclass AS inhrelname,
   a.attname AS attrname
  FROM pg_catalog.pg_inherits i
  LEFT JOIN pg_catalog.pg_attribute a ON
   (attrelid = inhparent AND attnum > 0)
  WHERE inhrelid = 'orders'::regclass::oid
  ORDER BY inhseqno
 ) a
GROUP BY attrname
;;
