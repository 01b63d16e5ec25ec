-- Global aggregates over the Nexmark bid stream, for `-extra` (not Nexmark
-- queries): each view is one global Reduce, which on several workers folds
-- each Step's bids in parts and merges them (exec's two-phase global
-- Reduce, issue 9).

-- g0: a q0-like count of every bid.
CREATE MATERIALIZED VIEW g0 AS
SELECT count(*) AS bids FROM bid;

-- g1: bid statistics: sums, averages, extrema, bits, a DISTINCT count.
CREATE MATERIALIZED VIEW g1 AS
SELECT count(*) AS bids, sum(price) AS total, avg(price) AS mean, min(price) AS lo, max(price) AS hi,
       max(date_time) AS latest, bit_or(bidder) AS bidders_bits, count(DISTINCT channel) AS channels,
       var_pop(price) AS price_var
FROM bid;
