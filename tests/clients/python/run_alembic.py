"""Alembic migrations against a server: Alembic runs PostgreSQL migrations
in one transaction (transactional DDL), so a failing migration must leave
nothing of the migrations before it; then upgrade to a revision, and
downgrade to nothing. The migration scripts are written to a temporary
directory (the revisions below), as `alembic revision` would.

Usage: python3 run_alembic.py postgres://user@host:port/db
"""
import atexit
import os
import shutil
import sys
import tempfile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sqlalchemy as sa  # noqa: E402
from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402
from transcript import check, rows  # noqa: E402

URL = sys.argv[1].replace("postgres://", "postgresql+psycopg2://", 1)

ENV = '''
from alembic import context
from sqlalchemy import engine_from_config, pool

config = context.config
engine = engine_from_config(config.get_section(config.config_ini_section), prefix="sqlalchemy.",
                            poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
'''

REVISIONS = {
    "0001_accounts.py": '''
revision, down_revision, branch_labels, depends_on = "0001", None, None, None
from alembic import op
import sqlalchemy as sa


def upgrade():
    t = op.create_table("mig_accounts", sa.Column("id", sa.Integer, primary_key=True),
                        sa.Column("name", sa.Text, nullable=False), sa.Column("balance", sa.Integer))
    op.create_index("mig_accounts_name", "mig_accounts", ["name"])
    op.bulk_insert(t, [{"id": 1, "name": "ann", "balance": 10}, {"id": 2, "name": "bob", "balance": 20}])


def downgrade():
    op.drop_index("mig_accounts_name", "mig_accounts")
    op.drop_table("mig_accounts")
''',
    "0002_emails.py": '''
revision, down_revision, branch_labels, depends_on = "0002", "0001", None, None
from alembic import op
import sqlalchemy as sa


def upgrade():
    op.add_column("mig_accounts", sa.Column("email", sa.Text, server_default="none"))
    op.alter_column("mig_accounts", "name", new_column_name="full_name")
    op.execute("INSERT INTO mig_accounts (id, full_name, balance, email) VALUES (3, 'cy', 30, 'cy@example.com')")
    op.execute("CREATE VIEW mig_rich AS SELECT full_name FROM mig_accounts WHERE balance > 15")
    op.execute("CREATE MATERIALIZED VIEW mig_totals AS SELECT count(*) AS n, sum(balance) AS total FROM mig_accounts")


def downgrade():
    op.execute("DROP MATERIALIZED VIEW mig_totals")
    op.execute("DROP VIEW mig_rich")
    op.execute("DELETE FROM mig_accounts WHERE id = 3")
    op.alter_column("mig_accounts", "full_name", new_column_name="name")
    op.drop_column("mig_accounts", "email")
''',
    "0003_broken.py": '''
revision, down_revision, branch_labels, depends_on = "0003", "0002", None, None
from alembic import op
import sqlalchemy as sa


def upgrade():
    op.create_table("mig_broken", sa.Column("id", sa.Integer, primary_key=True))
    op.execute("SELECT 1 / 0")


def downgrade():
    op.drop_table("mig_broken")
''',
}


def scripts():
    """Writes the migration environment and returns its directory."""
    d = tempfile.mkdtemp(prefix="eddy-alembic-")
    atexit.register(shutil.rmtree, d, True)
    os.mkdir(os.path.join(d, "versions"))
    with open(os.path.join(d, "env.py"), "w") as f:
        f.write(ENV)
    for name, text in REVISIONS.items():
        with open(os.path.join(d, "versions", name), "w") as f:
            f.write(text)
    return d


cfg = Config()
cfg.set_main_option("script_location", scripts())
cfg.set_main_option("sqlalchemy.url", URL)
engine = sa.create_engine(URL)


def show():
    """Prints the migration state: the version and the relations."""
    with engine.connect() as c:
        has = c.execute(sa.text("SELECT count(*) FROM pg_class WHERE relname = 'alembic_version'")).scalar()
        print("version", c.execute(sa.text("SELECT version_num FROM alembic_version")).fetchall() if has else None)
        rows(c.execute(sa.text("SELECT relname, relkind FROM pg_class WHERE relname LIKE 'mig%' "
                               "AND relkind IN ('r', 'v', 'm', 'S') ORDER BY 1")))


@check("upgrade head fails at 0003")
def _():
    command.upgrade(cfg, "head")


@check("after the failed upgrade")
def _():
    show()


@check("upgrade 0002")
def _():
    command.upgrade(cfg, "0002")
    show()


@check("migrated data")
def _():
    with engine.connect() as c:
        rows(c.execute(sa.text("SELECT id, full_name, balance, email FROM mig_accounts ORDER BY id")))
        rows(c.execute(sa.text("SELECT full_name FROM mig_rich ORDER BY 1")))
        rows(c.execute(sa.text("SELECT n, total FROM mig_totals")))


@check("downgrade 0001")
def _():
    command.downgrade(cfg, "0001")
    show()
    with engine.connect() as c:
        rows(c.execute(sa.text("SELECT id, name, balance FROM mig_accounts ORDER BY id")))


@check("downgrade base")
def _():
    command.downgrade(cfg, "base")
    show()
