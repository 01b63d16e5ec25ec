"""psycopg2 (Debian python3-psycopg2) doing ordinary work against a server.

Usage: python3 run_psycopg2.py postgres://user@host:port/db
"""
import datetime
import decimal
import io
import sys
import uuid

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import psycopg2  # noqa: E402
import psycopg2.extras  # noqa: E402
from transcript import check, rows  # noqa: E402

conn = psycopg2.connect(sys.argv[1])
conn.autocommit = True
cur = conn.cursor()


def reset():
    """Roll back whatever a failed check left open; autocommit again."""
    conn.rollback()
    conn.autocommit = True


@check("connect", reset)
def _():
    print(conn.server_version // 10000, conn.info.parameter_status("client_encoding"))
    cur.execute("SELECT 1")
    print(cur.fetchone())


@check("ddl", reset)
def _():
    cur.execute("""CREATE TABLE py2_types (id int PRIMARY KEY, i8 bigint, f8 float8, n numeric(12,3),
        b boolean, t text, d date, ts timestamp, tstz timestamptz, by bytea, u uuid, j jsonb,
        ia int[], ta text[])""")
    print(cur.statusmessage)


@check("parameters", reset)
def _():
    psycopg2.extras.register_uuid()
    for i in range(1, 4):
        cur.execute("INSERT INTO py2_types VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", (
            i, 9000000000 + i, 1.5 * i, decimal.Decimal("1234.567") + i, i % 2 == 0, "it's \"%d\" é" % i,
            datetime.date(2024, 1, i), datetime.datetime(2024, 1, i, 10, 30, 0, 250000),
            datetime.datetime(2024, 1, i, 10, 30, tzinfo=datetime.timezone.utc), bytes([0, i, 255]),
            uuid.UUID(int=i), psycopg2.extras.Json({"k": [i, None]}), [i, None, 3], ["a", "b c", None]))
        print(cur.statusmessage, cur.rowcount)
    cur.execute("INSERT INTO py2_types (id) VALUES (%s)", (4,))
    cur.execute("SET TIME ZONE 'UTC'")
    cur.execute("SELECT * FROM py2_types WHERE id >= %s ORDER BY id", (2,))
    print([d.name for d in cur.description])
    rows(cur.fetchall())


@check("description", reset)
def _():
    cur.execute("SELECT id, name, score, 1.5::float8 AS f FROM customers WHERE id = %(id)s", {"id": 1})
    for d in cur.description:
        print(d.name, d.type_code, d.internal_size if d.type_code != 1700 else "", d.precision, d.scale, d.null_ok)
    rows(cur.fetchall())


@check("executemany", reset)
def _():
    cur.execute("CREATE TABLE py2_many (id int PRIMARY KEY, v text)")
    cur.executemany("INSERT INTO py2_many VALUES (%s, %s)", [(i, "v%d" % i) for i in range(20)])
    psycopg2.extras.execute_values(cur, "INSERT INTO py2_many VALUES %s", [(i, "w") for i in range(20, 30)])
    cur.execute("SELECT count(*), max(id) FROM py2_many")
    rows(cur.fetchall())


@check("transactions", reset)
def _():
    conn.autocommit = False
    cur.execute("INSERT INTO py2_many VALUES (100, 'gone')")
    conn.rollback()
    with conn:
        cur.execute("INSERT INTO py2_many VALUES (101, 'kept')")
    try:
        with conn:
            cur.execute("INSERT INTO py2_many VALUES (101, 'dup')")
    except psycopg2.IntegrityError as e:
        print("duplicate", e.pgcode)
    cur.execute("SELECT id, v FROM py2_many WHERE id >= 100 ORDER BY id")
    rows(cur.fetchall())
    conn.commit()
    conn.autocommit = True


@check("copy from", reset)
def _():
    buf = io.StringIO("200\tcopied\n201\t\\N\n")
    cur.copy_expert("COPY py2_many (id, v) FROM STDIN", buf)
    print(cur.rowcount)
    cur.copy_from(io.StringIO("202,csv\n"), "py2_many", sep=",")
    cur.execute("SELECT id, v FROM py2_many WHERE id >= 200 ORDER BY id")
    rows(cur.fetchall())


@check("copy to", reset)
def _():
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT id, name, score FROM customers ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", out)
    print(out.getvalue(), end="")
    out = io.StringIO()
    cur.copy_to(out, "customers", columns=("id", "email"))
    print(out.getvalue(), end="")


@check("named cursor", reset)
def _():
    conn.autocommit = False
    named = conn.cursor(name="py2_named")
    named.itersize = 4
    named.execute("SELECT id FROM py2_many ORDER BY id")
    ids = [r[0] for r in named]
    print(len(ids), sum(ids))
    named.close()
    conn.commit()
    conn.autocommit = True


@check("savepoints", reset)
def _():
    conn.autocommit = False
    cur.execute("INSERT INTO py2_many VALUES (300, 'outer')")
    cur.execute("SAVEPOINT sp")
    cur.execute("INSERT INTO py2_many VALUES (301, 'inner')")
    cur.execute("ROLLBACK TO SAVEPOINT sp")
    conn.commit()
    conn.autocommit = True
    cur.execute("SELECT id FROM py2_many WHERE id >= 300 ORDER BY id")
    rows(cur.fetchall())


@check("catalog", reset)
def _():
    cur.execute("SELECT typname, typarray::regtype::text FROM pg_type WHERE typname IN ('int4', 'text', 'numeric') ORDER BY 1")
    rows(cur.fetchall())
    cur.execute("SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r','v','m') ORDER BY 1")
    rows(cur.fetchall())


@check("listen notify", reset)
def _():
    import select
    other = psycopg2.connect(sys.argv[1])
    other.autocommit = True
    cur.execute("LISTEN py2_channel")
    oc = other.cursor()
    oc.execute("NOTIFY py2_channel, 'hello'")
    oc.execute("SELECT pg_notify('py2_channel', 'second')")
    got = []
    for _ in range(50):
        if select.select([conn], [], [], 0.1) != ([], [], []):
            conn.poll()
            while conn.notifies:
                n = conn.notifies.pop(0)
                got.append((n.channel, n.payload, n.pid == other.get_backend_pid()))
        if len(got) >= 2:
            break
    print(got)
    cur.execute("UNLISTEN *")
    other.close()


@check("prepare execute", reset)
def _():
    cur.execute("PREPARE py2_by_id (int) AS SELECT name FROM customers WHERE id = $1")
    cur.execute("EXECUTE py2_by_id (3)")
    rows(cur.fetchall())
    cur.execute("SELECT name, parameter_types::text FROM pg_prepared_statements WHERE name = 'py2_by_id'")
    rows(cur.fetchall())
    cur.execute("DEALLOCATE py2_by_id")
    print(cur.statusmessage)


@check("errors", reset)
def _():
    for sql in ["SELECT * FROM no_such_table", "SELECT 1/0", "SELEC 1"]:
        try:
            cur.execute(sql)
        except psycopg2.Error as e:
            print(type(e).__name__, e.pgcode)
