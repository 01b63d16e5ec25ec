#!/usr/bin/env python3
"""Replays the golden files of repr against a real PostgreSQL 15 and
reports every case where PostgreSQL's answer differs from the golden one.

Usage: PGHOST=/tmp PGPORT=55433 PGUSER=... verify_pg.py testdata/text ...
Commands with no PostgreSQL counterpart (literal, castctx) are skipped.
"""
import re, subprocess, sys

SEND = {"bool": "boolsend", "int2": "int2send", "int4": "int4send", "int8": "int8send",
        "float4": "float4send", "float8": "float8send", "numeric": "numeric_send",
        "text": "textsend", "varchar": "varcharsend", "bpchar": "bpcharsend",
        "bytea": "byteasend", "date": "date_send", "time": "time_send",
        "timestamp": "timestamp_send", "timestamptz": "timestamptz_send",
        "interval": "interval_send", "jsonb": "jsonb_send",
        "bit": "bit_send", "varbit": "varbit_send"}


def q(s):
    return "'" + s.replace("'", "''") + "'"


def tokens(line):
    out, i = [], 0
    line = line.strip()
    while i < len(line):
        if line[i] == ' ':
            i += 1
        elif line[i] == "'":
            j, buf = i + 1, []
            while j < len(line):
                if line[j] == "'" and j + 1 < len(line) and line[j + 1] == "'":
                    buf.append("'"); j += 2
                elif line[j] == "'":
                    break
                else:
                    buf.append(line[j]); j += 1
            out.append("".join(buf)); i = j + 1
        else:
            j = line.find(' ', i)
            j = len(line) if j < 0 else j
            out.append(line[i:j]); i = j
    return out


def sql_for(cmd, a):
    if cmd == "text":
        return f"CREATE TEMP TABLE t(c {a[0]}); INSERT INTO t VALUES ({q(a[1])}); SELECT c FROM t"
    if cmd == "cast":
        return f"SELECT CAST(CAST({q(a[2])} AS {a[0]}) AS {a[1]})"
    if cmd == "assign":
        return f"CREATE TEMP TABLE t(c {a[1]}); INSERT INTO t SELECT CAST({q(a[2])} AS {a[0]}); SELECT c FROM t"
    if cmd == "binary":
        return f"SELECT encode({SEND[a[0].split('(')[0]]}(CAST({q(a[1])} AS {a[0]})), 'hex')"
    if cmd == "extract":
        return f"SELECT extract({a[0]} FROM CAST({q(a[2])} AS {a[1]}))"
    if cmd == "trunc":
        return f"SELECT date_trunc({q(a[0])}, CAST({q(a[2])} AS {a[1]}))"
    if cmd == "addinterval":
        return f"SELECT CAST({q(a[1])} AS {a[0]}) + CAST({q(a[2])} AS interval)"
    if cmd == "typename":
        mods = "(" + ",".join(a[1:]) + ")" if len(a) > 1 else ""
        return (f"CREATE TEMP TABLE t(c {a[0]}{mods}); SELECT format_type(atttypid, atttypmod) || ' oid=' || "
                f"atttypid::int || ' typmod=' || atttypmod FROM pg_attribute WHERE attrelid='t'::regclass AND attname='c'")
    return None


def run(sql, tz):
    p = subprocess.run(["psql", "-AtqX", "-v", "VERBOSITY=verbose", "-v", "ON_ERROR_STOP=1",
                        "-c", f"SET TimeZone={q(tz)}; {sql}", "postgres"],
                       capture_output=True, text=True)
    if p.returncode == 0:
        out = p.stdout[:-1] if p.stdout.endswith("\n") else p.stdout
        return "[" + out + "]" if out == "" or out[0] == " " or out[-1] == " " else out
    m = re.search(r"ERROR:  (\w{5}): (.*)", p.stderr)
    return f"ERROR {m.group(1)}: {m.group(2)}" if m else "PSQL " + p.stderr.strip()


def main():
    bad = 0
    for path in sys.argv[1:]:
        lines = open(path).read().split("\n")
        i = 0
        while i < len(lines):
            head = lines[i].split()
            if not head or head[0].startswith("#"):
                i += 1; continue
            cmd = head[0]
            tz = "UTC"
            for arg in head[1:]:
                if arg.startswith("tz="):
                    tz = arg[3:]
            j = lines.index("----", i)
            inputs = [l for l in lines[i + 1:j] if l.strip()]
            outputs = lines[j + 1:j + 1 + len(inputs)]
            i = j + 1 + len(inputs)
            for inp, want in zip(inputs, outputs):
                sql = sql_for(cmd, tokens(inp))
                if sql is None:
                    continue
                got = run(sql, tz)
                if got != want and not (want == "NULL" and got == "[]"):
                    bad += 1
                    print(f"{path}: {cmd} {inp}\n   golden: {want}\n   pg:     {got}")
    print(f"{bad} differences")
    sys.exit(1 if bad else 0)


main()
