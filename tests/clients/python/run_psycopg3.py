"""psycopg 3 (Debian python3-psycopg) doing ordinary work against a server.

Usage: python3 run_psycopg3.py postgres://user@host:port/db
"""
import datetime
import decimal
import sys
import uuid

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import psycopg  # noqa: E402
from psycopg.types import TypeInfo  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402
from transcript import check, rows  # noqa: E402

conn = psycopg.connect(sys.argv[1], autocommit=True)


def reset():
    """Replace the connection a failed check may have left in a
    transaction block (psycopg's transaction() contexts refuse a bare
    rollback there)."""
    global conn
    conn.close()
    conn = psycopg.connect(sys.argv[1], autocommit=True)


@check("connect", reset)
def _():
    print(conn.info.server_version // 10000, conn.info.parameter_status("client_encoding"),
          conn.info.parameter_status("DateStyle"))


@check("ddl", reset)
def _():
    conn.execute("""CREATE TABLE py3_types (id int PRIMARY KEY, i2 smallint, i8 bigint, f8 float8,
        n numeric(12,3), b boolean, t text, d date, ts timestamp, tstz timestamptz, iv interval,
        by bytea, u uuid, j jsonb, ia int[], ta text[])""")
    print("created")


@check("parameters", reset)
def _():
    conn.execute("SET TIME ZONE 'UTC'")
    with conn.cursor() as cur:
        for i in range(1, 4):
            cur.execute("INSERT INTO py3_types VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", (
                i, -i, 9000000000 + i, 1.5 * i, decimal.Decimal("1234.567") + i, i % 2 == 0, "it's \"%d\" é" % i,
                datetime.date(2024, 1, i), datetime.datetime(2024, 1, i, 10, 30, 0, 250000),
                datetime.datetime(2024, 1, i, 10, 30, tzinfo=datetime.timezone.utc),
                datetime.timedelta(days=i, seconds=5), bytes([0, i, 255]), uuid.UUID(int=i),
                Jsonb({"k": [i, None]}), [i, None, 3], ["a", "b c", None]))
            print(cur.statusmessage, cur.rowcount)
        cur.execute("SELECT * FROM py3_types WHERE id >= %s ORDER BY id", (2,))
        rows(cur.fetchall())
        cur.execute("SELECT id, t FROM py3_types WHERE id = %s AND b = %s", (2, True), prepare=True)
        rows(cur.fetchall())


@check("binary", reset)
def _():
    with conn.cursor(binary=True) as cur:
        cur.execute("SELECT id, i2, i8, f8, n, b, t, d, ts, tstz, iv, by, u, j, ia, ta FROM py3_types WHERE id = %b", (3,))
        rows(cur.fetchall())


@check("executemany", reset)
def _():
    conn.execute("CREATE TABLE py3_many (id int PRIMARY KEY, v text)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO py3_many VALUES (%s, %s)", [(i, "v%d" % i) for i in range(20)])
        cur.execute("SELECT count(*), max(id) FROM py3_many")
        rows(cur.fetchall())


@check("TypeInfo.fetch", reset)
def _():
    for name in ["int4", "text", "numeric", "jsonb", "uuid"]:
        t = TypeInfo.fetch(conn, name)
        print(name, t.oid, t.array_oid)


@check("enum", reset)
def _():
    # An enum type through EnumInfo and register_enum: parameters typed
    # with the enum's OID in text and binary format, results as members.
    from psycopg.types.enum import EnumInfo, register_enum
    conn.execute("CREATE TYPE py3_mood AS ENUM ('sad', 'ok', 'happy')")
    conn.execute("CREATE TABLE py3_moods (id int PRIMARY KEY, m py3_mood)")
    info = EnumInfo.fetch(conn, "py3_mood")
    print(info.name, info.labels, info.array_oid > 0)
    register_enum(info, conn)
    mood = info.enum
    conn.execute("INSERT INTO py3_moods VALUES (%s, %s), (%s, %s)", (1, mood.happy, 2, mood.ok))
    with conn.cursor(binary=True) as cur:
        cur.execute("INSERT INTO py3_moods VALUES (%s, %s)", (3, mood.sad))
        cur.execute("SELECT id, m FROM py3_moods ORDER BY m")
        print([(i, m.name) for i, m in cur.fetchall()])
    print([r[0].name for r in conn.execute("SELECT m FROM py3_moods WHERE m > %s ORDER BY id", (mood.sad,))])
    conn.execute("DROP TABLE py3_moods")
    conn.execute("DROP TYPE py3_mood")


@check("copy from", reset)
def _():
    with conn.cursor() as cur:
        with cur.copy("COPY py3_many (id, v) FROM STDIN") as cp:
            cp.write_row((200, "copied"))
            cp.write_row((201, None))
        print(cur.rowcount)
        cur.execute("SELECT id, v FROM py3_many WHERE id >= 200 ORDER BY id")
        rows(cur.fetchall())


@check("copy to", reset)
def _():
    with conn.cursor() as cur:
        with cur.copy("COPY (SELECT id, name, score FROM customers ORDER BY id) TO STDOUT") as cp:
            rows(cp.rows())


@check("transactions", reset)
def _():
    try:
        with conn.transaction():
            conn.execute("INSERT INTO py3_many VALUES (100, 'gone')")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    with conn.transaction():
        conn.execute("INSERT INTO py3_many VALUES (101, 'kept')")
    rows(conn.execute("SELECT id, v FROM py3_many WHERE id >= 100 AND id < 200 ORDER BY id").fetchall())


@check("nested transaction", reset)
def _():
    with conn.transaction():
        conn.execute("INSERT INTO py3_many VALUES (300, 'outer')")
        try:
            with conn.transaction():
                conn.execute("INSERT INTO py3_many VALUES (301, 'inner')")
                raise RuntimeError("roll back the savepoint")
        except RuntimeError:
            pass
    rows(conn.execute("SELECT id FROM py3_many WHERE id >= 300 ORDER BY id").fetchall())


@check("named cursor", reset)
def _():
    with conn.transaction():
        with conn.cursor(name="py3_named") as cur:
            cur.itersize = 4
            cur.execute("SELECT id FROM py3_many ORDER BY id")
            ids = [r[0] for r in cur]
            print(len(ids), sum(ids))


@check("listen notify", reset)
def _():
    other = psycopg.connect(sys.argv[1], autocommit=True)
    conn.execute("LISTEN py3_channel")
    other.execute("NOTIFY py3_channel, 'hello'")
    other.execute("SELECT pg_notify('py3_channel', %s)", ("from a parameter",))
    got = []
    gen = conn.notifies()
    for n in gen:
        got.append((n.channel, n.payload, n.pid == other.info.backend_pid))
        if len(got) == 2:
            gen.close()
    print(got)
    conn.execute("UNLISTEN py3_channel")
    other.close()


@check("errors", reset)
def _():
    for sql in ["SELECT * FROM no_such_table", "SELECT 1/0", "SELEC 1"]:
        try:
            conn.execute(sql)
        except psycopg.Error as e:
            print(type(e).__name__, e.sqlstate)
