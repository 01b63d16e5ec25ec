"""SQLAlchemy and pandas against a server: reflection, ORM and
read_sql/to_sql, through each installed dialect. The test runs it twice:
under bookworm's python3-sqlalchemy (1.4) and under trixie's 2.0
(fetch_sqla2.sh), which also has the psycopg (3) dialect; the program
keeps to the API both versions share (connect(), text(), commit()).

Usage: python3 run_sqlalchemy.py postgres://user@host:port/db
"""
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sqlalchemy as sa  # noqa: E402
from sqlalchemy import orm  # noqa: E402
from transcript import check, rows  # noqa: E402

URL = sys.argv[1].replace("postgres://", "postgresql+psycopg2://", 1)
engine = sa.create_engine(URL)
print("## version")
print(sa.__version__.split(".")[0])


@check("connect")
def _():
    with engine.connect() as c:
        print(engine.dialect.server_version_info[0], c.execute(sa.text("SELECT 1")).scalar())


insp = sa.inspect(engine)


@check("schemas and names")
def _():
    names = insp.get_schema_names()
    print([s for s in ["public", "information_schema"] if s in names])
    print(sorted(insp.get_table_names()))
    print(sorted(insp.get_view_names(include="plain") if sa.__version__ < "2" else insp.get_view_names()))
    if hasattr(insp, "get_materialized_view_names"):
        print(sorted(insp.get_materialized_view_names()))
    else:
        print(sorted(insp.get_view_names(include="materialized")))


for rel in ["customers", "orders", "big_orders", "customer_totals"]:
    @check("get_columns " + rel)
    def _():
        for col in insp.get_columns(rel):
            print(col["name"], col["type"], col["nullable"], col.get("default"), col.get("autoincrement"),
                  col.get("comment"))


for rel in ["customers", "orders", "order_lines"]:
    @check("constraints " + rel)
    def _():
        print(insp.get_pk_constraint(rel))
        print(insp.get_foreign_keys(rel))
        print(sorted(insp.get_unique_constraints(rel), key=lambda u: u["name"]))
        print(insp.get_table_comment(rel))

    @check("get_indexes " + rel)
    def _():
        for ix in sorted(insp.get_indexes(rel), key=lambda i: i["name"]):
            print(ix["name"], ix["column_names"], ix["unique"])


@check("get_view_definition")
def _():
    print(insp.get_view_definition("big_orders"))


@check("autoload")
def _():
    md = sa.MetaData()
    orders = sa.Table("orders", md, autoload_with=engine)
    customers = sa.Table("customers", md, autoload_with=engine)
    print([c.name for c in orders.columns], [str(fk.column) for fk in orders.foreign_keys])
    q = sa.select(customers.c.name, sa.func.sum(orders.c.amount)).join_from(orders, customers) \
        .group_by(customers.c.name).order_by(customers.c.name)
    with engine.connect() as c:
        rows(c.execute(q).all())


def commit(conn):
    """Commit conn's transaction: SQLAlchemy 2.0 connections autobegin and
    roll back on close; 1.4's (without future=True) autocommit DDL and DML."""
    if hasattr(conn, "commit"):
        conn.commit()


Base = orm.declarative_base()


class Item(Base):
    __tablename__ = "sqla_items"
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    name = sa.Column(sa.String(30), nullable=False)
    price = sa.Column(sa.Numeric(10, 2))
    tags = sa.Column(sa.ARRAY(sa.Text))


@check("orm")
def _():
    Base.metadata.create_all(engine)
    with orm.Session(engine) as s:
        s.add_all([Item(id=i, name="item%d" % i, price=i * 1.25, tags=["t%d" % i]) for i in range(1, 6)])
        s.commit()
        it = s.get(Item, 3)
        it.price = 99
        s.delete(s.get(Item, 5))
        s.commit()
        rows((i.id, i.name, i.price, i.tags) for i in s.query(Item).filter(Item.id > 1).order_by(Item.id))
    print(sa.inspect(engine).has_table("sqla_items"))


@check("enum column")
def _():
    # sa.Enum on PostgreSQL: create_all emits CREATE TYPE ... AS ENUM before
    # the table; reflection reads pg_enum (get_enums, get_columns).
    md = sa.MetaData()
    mood = sa.Enum("sad", "ok", "happy", name="sqla_mood")
    tbl = sa.Table("sqla_moods", md, sa.Column("id", sa.Integer, primary_key=True), sa.Column("m", mood))
    md.create_all(engine)
    with engine.connect() as c:
        c.execute(tbl.insert(), [{"id": 1, "m": "happy"}, {"id": 2, "m": "sad"}, {"id": 3, "m": None}])
        commit(c)
        rows(c.execute(sa.select(tbl.c.id, tbl.c.m).order_by(tbl.c.m, tbl.c.id)).all())
        rows(c.execute(sa.select(tbl.c.id).where(tbl.c.m > "sad").order_by(tbl.c.id)).all())
    i = sa.inspect(engine)
    print([(e["name"], e["schema"], e["visible"], e["labels"]) for e in i.get_enums()])
    for col in i.get_columns("sqla_moods"):
        print(col["name"], col["type"], getattr(col["type"], "enums", None))
    t2 = sa.Table("sqla_moods", sa.MetaData(), autoload_with=engine)
    print(type(t2.c.m.type).__name__, t2.c.m.type.name, t2.c.m.type.enums)
    md.drop_all(engine)
    print(sa.inspect(engine).get_enums())


@check("pandas")
def _():
    # Through a Connection and text(): bookworm's pandas 1.5 predates
    # SQLAlchemy 2.0, whose Engine has no execute() and takes no bare SQL
    # strings; both APIs accept this form.
    import pandas as pd
    with engine.connect() as c:
        df = pd.read_sql(sa.text("SELECT id, name, score, active FROM customers ORDER BY id"), c)
        print(df.to_string())
        print(df.dtypes.to_dict())
        out = pd.DataFrame({"k": [1, 2, 3], "v": ["a", None, "c"], "f": [0.5, 1.5, None]})
        print(out.to_sql("pandas_out", c, index=False))
        commit(c)
        print(pd.read_sql_table("pandas_out", c).to_string())


try:
    sa.create_engine(URL.replace("+psycopg2", "+psycopg"))
    have_psycopg_dialect = True
except Exception:
    have_psycopg_dialect = False
if have_psycopg_dialect:
    engine3 = sa.create_engine(URL.replace("+psycopg2", "+psycopg"))

    @check("psycopg dialect")
    def _():
        i3 = sa.inspect(engine3)
        print(sorted(i3.get_table_names()), i3.get_pk_constraint("orders"))
        with engine3.connect() as c:
            rows(c.execute(sa.text("SELECT id, name FROM customers WHERE id < :n ORDER BY id"), {"n": 3}).all())
