-- COPY ... TO STDOUT statements whose output (bytes, or SQLSTATE and
-- message) must equal PostgreSQL 15's. Lines before "-- copies" set up
-- the data; every line after it is one COPY run with pgconn's CopyTo.
-- Row order: a table's rows come in primary key order on Eddy, in
-- insertion order on PostgreSQL, so rows are inserted in key order and
-- other orders are asked for with ORDER BY.
CREATE TABLE ct (id int PRIMARY KEY, b boolean, s smallint, i integer, g bigint, r real, d double precision, n numeric(12,3), t text, vc varchar(10), c char(4), by bytea, dt date, tm time, ts timestamp, tz timestamptz, iv interval, j jsonb, ia int[], ta text[], na numeric[], u uuid)
INSERT INTO ct VALUES (1, true, -12, 123456, -9000000000000000000, 1.5, 0.00225, 12345.678, 'héllo ✓ ''quoted''', 'abc', 'ab', '\x0001ff', '2024-02-29', '13:45:01.25', '2024-02-29 13:45:01.5', '2024-02-29 13:45:01+02', '1 year 2 mons 3 days 00:00:04.000001', '{"a": 1, "b": ["x", null, true]}', '{1,NULL,3}', '{"a b","c,d",NULL,"\"q\""}', '{1.5,-2,NaN}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')
INSERT INTO ct (id, t, vc) VALUES (2, E'tab\there\nnew line\\back\rcr\bbs\fff' || chr(11) || 'vt', 'a,b"c')
INSERT INTO ct (id, t, vc) VALUES (3, '', '\.')
INSERT INTO ct (id, t, vc) VALUES (4, 'NULL', 'x|y')
INSERT INTO ct (id) VALUES (5)
CREATE VIEW ctv AS SELECT id, t FROM ct WHERE id < 4
CREATE TABLE one (x text)
INSERT INTO one VALUES ('\.')
-- copies
COPY ct TO STDOUT
COPY ct TO STDOUT (FORMAT binary)
COPY ct TO STDOUT (FORMAT csv)
COPY ct TO STDOUT (FORMAT csv, HEADER)
COPY ct TO STDOUT WITH CSV HEADER
COPY (SELECT t, vc, id FROM ct ORDER BY id) TO STDOUT (FORMAT csv, FORCE_QUOTE (vc), NULL 'NULL')
COPY ct (id, t, vc) TO STDOUT (FORMAT csv, FORCE_QUOTE (vc, t), NULL 'NULL')
COPY ct (id, t, vc) TO STDOUT (FORMAT csv, FORCE_QUOTE *, QUOTE '''', ESCAPE '\')
COPY ct (id, t, vc) TO STDOUT (DELIMITER '|', NULL 'NULL', HEADER)
COPY ct (id, vc) TO STDOUT (FORMAT csv, DELIMITER ';', HEADER false)
COPY (SELECT t FROM ct ORDER BY id) TO STDOUT (FORMAT csv)
COPY (SELECT t FROM ct WHERE id = 3) TO STDOUT (FORMAT csv)
COPY one TO STDOUT (FORMAT csv)
COPY one TO STDOUT
COPY (SELECT id, t FROM ctv ORDER BY id DESC) TO STDOUT
COPY (SELECT 1 AS "x,y", 'q' AS """z""", NULL::int AS n) TO STDOUT (FORMAT csv, HEADER)
COPY (SELECT E'a|b' AS "x|y") TO STDOUT (DELIMITER '|', HEADER)
COPY (SELECT ia, ta, na FROM ct WHERE id = 1) TO STDOUT (FORMAT binary)
COPY (SELECT id FROM ct WHERE id > 100) TO STDOUT (FORMAT binary)
COPY (SELECT id FROM ct WHERE id > 100) TO STDOUT (FORMAT csv, HEADER)
COPY (SELECT x FROM generate_series(1, 3) AS x) TO STDOUT (FORMAT binary)
COPY ct TO STDOUT (FORMAT csv, QUOTE 'ab')
COPY ct TO STDOUT (QUOTE '"')
COPY ct TO STDOUT (ESCAPE '"')
COPY ct TO STDOUT (FORCE_QUOTE (t))
COPY ct TO STDOUT (FORMAT csv, FORCE_NOT_NULL (t))
COPY ct TO STDOUT (FORMAT csv, FORCE_NULL (t))
COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE (zz))
COPY (SELECT 1 AS a) TO STDOUT (FORMAT csv, FORCE_QUOTE (b))
COPY ct TO STDOUT (DELIMITER E'\n')
COPY ct TO STDOUT (NULL E'\r')
COPY ct TO STDOUT (DELIMITER ',', NULL 'a,b')
COPY ct TO STDOUT (FORMAT csv, DELIMITER '"')
COPY ct TO STDOUT (FORMAT csv, NULL 'x"y')
COPY ct TO STDOUT (FORMAT bogus)
COPY ct TO STDOUT (bogus 1)
COPY ct TO STDOUT (FORMAT csv, FORMAT text)
COPY ct TO STDOUT (DELIMITER '\')
COPY ct TO STDOUT (DELIMITER 'a')
COPY ct TO STDOUT (DELIMITER 'ab')
COPY ct TO STDOUT (FORMAT binary, NULL 'x')
COPY ct TO STDOUT (FORMAT binary, DELIMITER ',')
COPY ct TO STDOUT (FORMAT binary, HEADER)
COPY ct TO STDOUT (HEADER match)
COPY ct TO STDOUT (HEADER maybe)
COPY nosuch TO STDOUT
COPY ct (zz) TO STDOUT
COPY ct (id, id) TO STDOUT
COPY (SELECT nosuch FROM ct) TO STDOUT
COPY (SELECT 1/0) TO STDOUT
COPY (INSERT INTO one VALUES ('x,y'), (NULL) RETURNING x, 1 AS n) TO STDOUT (FORMAT csv, HEADER)
COPY (UPDATE one SET x = 'z' WHERE x = 'x,y' RETURNING *) TO STDOUT (FORMAT binary)
COPY (DELETE FROM one WHERE x = 'z' RETURNING x) TO STDOUT
COPY (DELETE FROM one WHERE x IS NULL) TO STDOUT
COPY one TO STDOUT
SET IntervalStyle = sql_standard
COPY (SELECT id, iv, ARRAY[iv] FROM ct ORDER BY id) TO STDOUT
COPY (SELECT id, iv FROM ct ORDER BY id) TO STDOUT (FORMAT csv)
SET IntervalStyle = iso_8601
COPY (SELECT id, iv, ARRAY[iv] FROM ct ORDER BY id) TO STDOUT
SET IntervalStyle = postgres_verbose
COPY (SELECT id, iv FROM ct ORDER BY id) TO STDOUT (FORMAT csv)
RESET IntervalStyle
