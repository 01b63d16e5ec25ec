// Package dataflow is the plan exec accepts: a printable, parsable graph of
// incremental operators over typed columns. It is exec's input format, so
// exec never imports the optimizer; the optimizer's lowering produces it and
// exec's golden tests write it by hand.
package dataflow
