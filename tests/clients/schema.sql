-- The objects every client test reads. Executed statement by statement
-- before a client program runs; on PostgreSQL the materialized views are
-- refreshed after it.
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email varchar(50) UNIQUE, score numeric(10,2), active boolean DEFAULT true);
COMMENT ON TABLE customers IS 'people who buy';
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id), amount float8, tags text[], placed date);
CREATE INDEX orders_placed_idx ON orders (placed);
CREATE TABLE order_lines (line int, order_id int REFERENCES orders(id), qty int NOT NULL, PRIMARY KEY (order_id, line));
CREATE UNIQUE INDEX order_lines_qty_idx ON order_lines (qty DESC, line);
CREATE VIEW big_orders AS SELECT id, customer_id, amount FROM orders WHERE amount > 100;
CREATE MATERIALIZED VIEW customer_totals AS SELECT customer_id, sum(amount) AS total, count(*) AS n FROM orders GROUP BY customer_id;
INSERT INTO customers VALUES (1, 'ann', 'ann@example.com', 10.50, true), (2, 'bob', NULL, NULL, false), (3, 'cy', 'cy@example.com', 7.25, true);
INSERT INTO orders VALUES (10, 1, 99.5, '{a,b}', '2024-01-02'), (11, 1, 250, '{}', '2024-02-03'), (12, 3, 120.25, NULL, NULL);
