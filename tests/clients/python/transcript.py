"""Transcript helpers shared by the Python client programs of tests/clients.

Each program prints "## check" sections; a check that raises prints its
SQLSTATE and first message line, and the next check runs.
"""
import sys
import traceback


def check(name, reset=None):
    """Decorator: print the section header, run the check, report errors.

    reset, if given, is called after a failed check to return the
    connection to a usable state for the next one.
    """
    def run(fn):
        print("## " + name, flush=True)
        try:
            fn()
        except Exception as e:  # report and go on: one check, one section
            code = getattr(e, "pgcode", None) or getattr(getattr(e, "orig", None), "pgcode", None)
            if code is None and hasattr(e, "sqlstate"):
                code = e.sqlstate
            if code is None and hasattr(getattr(e, "orig", None), "sqlstate"):
                code = e.orig.sqlstate
            msg = str(e).strip().split("\n")[0]
            print("error %s: %s" % (code, msg))
            if code is None:
                traceback.print_exc(file=sys.stderr)
            if reset is not None:
                reset()
        sys.stdout.flush()
        return fn
    return run


def rows(seq):
    """Print each row as "|"-separated reprs, then the count."""
    n = 0
    for r in seq:
        print("|".join(repr(bytes(v) if isinstance(v, memoryview) else v) for v in r))
        n += 1
    print("%d rows" % n)
