// node-postgres (pg, pg-cursor, pg-copy-streams) doing ordinary work
// against a server; prints a transcript of "## check" sections that
// tests/clients compares with PostgreSQL's.
// Usage: node clients.js postgres://user@host:port/db
'use strict';
const { Client, types } = require('pg');
const Cursor = require('pg-cursor');
const { to: copyTo, from: copyFrom } = require('pg-copy-streams');
const { pipeline } = require('stream/promises');
const { Readable, Writable } = require('stream');

// show prints each row's values in column order, "|"-separated.
function show(res) {
  for (const row of res.rows) {
    const values = Array.isArray(row) ? row : res.fields.map((f) => row[f.name]);
    console.log(values.map((v) => JSON.stringify(v)).join('|'));
  }
  console.log(`${res.rows.length} rows`);
}

const checks = [];
function check(name, fn) { checks.push([name, fn]); }

check('connect', async (c) => {
  const r = await c.query('SHOW server_version_num');
  console.log(r.rows[0].server_version_num.slice(0, 2), c.connectionParameters.database !== undefined);
});

check('types', async (c) => {
  await c.query(`CREATE TABLE node_types (id int PRIMARY KEY, i8 bigint, f8 float8, n numeric(12,3), b boolean,
    t text, d date, tstz timestamptz, by bytea, u uuid, j jsonb, ia int[], ta text[])`);
  await c.query("SET TIME ZONE 'UTC'");
  for (let i = 1; i <= 3; i++) {
    const r = await c.query('INSERT INTO node_types VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)',
      [i, (9000000000n + BigInt(i)).toString(), 1.5 * i, '1234.567', i % 2 === 0, `it's "${i}" é`, `2024-01-0${i}`,
        new Date(Date.UTC(2024, 0, i, 10, 30)), Buffer.from([0, i, 255]), `00000000-0000-0000-0000-00000000000${i}`,
        { k: [i, null] }, [i, null, 3], ['a', 'b c', null]]);
    console.log(r.command, r.rowCount);
  }
  const r = await c.query('SELECT * FROM node_types WHERE id >= $1 ORDER BY id', [2]);
  console.log(r.fields.map((f) => `${f.name}:${f.dataTypeID}`).join(' '));
  show(r);
});

check('untyped parameters', async (c) => {
  show(await c.query('SELECT id, name FROM customers WHERE id > $1 AND name <> $2 ORDER BY id', ['1', 'x']));
  show(await c.query({ name: 'by_id', text: 'SELECT name, score FROM customers WHERE id = $1', values: [3] }));
  show(await c.query({ name: 'by_id', text: 'SELECT name, score FROM customers WHERE id = $1', values: [1] }));
  show(await c.query({ text: 'SELECT id, tags FROM orders ORDER BY id', rowMode: 'array' }));
});

check('transactions', async (c) => {
  await c.query('CREATE TABLE node_many (id int PRIMARY KEY, v text)');
  await c.query('BEGIN');
  await c.query("INSERT INTO node_many VALUES (1, 'gone')");
  await c.query('ROLLBACK');
  await c.query('BEGIN');
  await c.query("INSERT INTO node_many VALUES (2, 'kept')");
  await c.query('COMMIT');
  try {
    await c.query("INSERT INTO node_many VALUES (2, 'dup')");
  } catch (e) {
    console.log('duplicate', e.code);
  }
  show(await c.query('SELECT * FROM node_many ORDER BY id'));
});

check('copy from', async (c) => {
  const stream = c.query(copyFrom('COPY node_many (id, v) FROM STDIN'));
  await pipeline(Readable.from(['10\tcopied\n', '11\t\\N\n', '12\tthird\n']), stream);
  console.log(stream.rowCount);
  show(await c.query('SELECT * FROM node_many WHERE id >= 10 ORDER BY id'));
});

check('copy to', async (c) => {
  let out = '';
  const stream = c.query(copyTo('COPY (SELECT id, name, score FROM customers ORDER BY id) TO STDOUT WITH (FORMAT csv)'));
  await pipeline(stream, new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } }));
  process.stdout.write(out);
});

check('cursor', async (c) => {
  await c.query('INSERT INTO node_many SELECT g, \'g\' || g FROM generate_series(100, 130) AS g');
  const cursor = c.query(new Cursor('SELECT id FROM node_many WHERE id >= $1 ORDER BY id', [100]));
  let n = 0; let sum = 0; let batch;
  do {
    batch = await cursor.read(7);
    n += batch.length;
    for (const r of batch) sum += r.id;
  } while (batch.length > 0);
  await cursor.close();
  console.log(n, sum);
});

check('listen notify', async (c) => {
  const other = new Client({ connectionString: process.argv[2] });
  await other.connect();
  const got = [];
  const done = new Promise((resolve) => {
    c.on('notification', (n) => {
      got.push([n.channel, n.payload, n.processId === other.processID]);
      if (got.length === 2) resolve();
    });
  });
  await c.query('LISTEN node_channel');
  await other.query("NOTIFY node_channel, 'hello'");
  await other.query('SELECT pg_notify($1, $2)', ['node_channel', 'param']);
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5000))]);
  console.log(JSON.stringify(got));
  await c.query('UNLISTEN *');
  await other.end();
});

check('discard all', async (c) => {
  await c.query("SET application_name = 'node-before-discard'");
  await c.query('DISCARD ALL');
  show(await c.query('SHOW application_name'));
});

check('errors', async (c) => {
  for (const sql of ['SELECT * FROM no_such_table', 'SELECT 1/0', 'SELEC 1']) {
    try {
      await c.query(sql);
    } catch (e) {
      console.log(e.code, e.severity);
    }
  }
});

async function main() {
  types.setTypeParser(20, (v) => v); // bigint as text, not a lossy Number
  let c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  for (const [name, fn] of checks) {
    console.log(`## ${name}`);
    try {
      await fn(c);
    } catch (e) {
      console.log(`error ${e.code}: ${String(e.message).split('\n')[0]}`);
      if (!e.code) console.error(e);
      await c.end().catch(() => {});
      c = new Client({ connectionString: process.argv[2] });
      await c.connect();
    }
  }
  await c.end();
}

main().catch((e) => { console.error(e); process.exit(1); });
