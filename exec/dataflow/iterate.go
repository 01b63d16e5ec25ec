package dataflow

import "fmt"

// Variable opens a loop: the nodes after it, up to the Fixpoint that
// closes it, form the loop body, and the Variable is the body's recursive
// collection. Its contents are empty at iteration 0, and at iteration i+1
// they are the contents of the Fixpoint's second input at iteration i, so
// the loop computes the least fixed point of x = f(x) from x = ∅
// (differential dataflow's iterate, with Materialize's LetRec start).
// Body nodes may read nodes before the Variable (loop-invariant inputs,
// entered at iteration 0); nodes after the Fixpoint read only the
// Fixpoint, never the body. Loops do not nest.
//
// The loop is maintained incrementally, retractions included: every
// stateful body operator keeps its updates indexed by iteration, and a
// Step recomputes only the (key, iteration) pairs its changes reach
// (exec/iterate.go). Name is the recursive query's name, for errors.
// Limit bounds the iterations: a Step that would change the variable at an
// iteration above it fails with SQLSTATE 54001 (a UNION ALL recursion
// that does not terminate). Rows, when positive, stops the loop without
// error after the first iteration of a Step at which the result holds at
// least Rows rows, when that Step only inserts: an ad hoc query under a
// LIMIT that any Rows of the rows satisfy (ir.Iterate.Rows).
type Variable struct {
	Name  string
	Limit int64
	Rows  int64
}

// Fixpoint closes the loop its first input (a Variable) opens: its second
// input, a body node, is the variable's next value, and its output is the
// value at the fixed point (the contents once no iteration changes it).
// Its types are those of its inputs. Stateless itself; the loop's state
// belongs to the body's operators.
type Fixpoint struct{}

func (Variable) opName() string { return "Variable" }
func (Fixpoint) opName() string { return "Fixpoint" }

func (op Variable) args() string {
	s := fmt.Sprintf("limit=%d", op.Limit)
	if op.Rows > 0 {
		s += fmt.Sprintf(" rows=%d", op.Rows)
	}
	if op.Name != "" {
		s = "name=" + quoteName(op.Name) + " " + s
	}
	return s
}

// variable parses [name=x] limit=N [rows=M].
func (a *argReader) variable() Variable {
	v := Variable{Name: a.name("name"), Limit: a.int("limit", -1), Rows: a.int("rows", 0)}
	if v.Limit < 0 {
		a.fail(fmt.Errorf("Variable needs limit=N (N >= 0)"))
	}
	return v
}

// Loop is one loop of a plan: the indices of its Variable and of the
// Fixpoint closing it. The body is the nodes strictly between them.
type Loop struct{ Var, Fixpoint int }

// Body reports whether node i belongs to the loop's body.
func (l Loop) Body(i int) bool { return i > l.Var && i < l.Fixpoint }

// Loops returns the plan's loops in plan order after checking their
// structure: every Variable is the first input of exactly one later
// Fixpoint, whose second input is a body node; loops do not nest; no node
// after a Fixpoint, nor the plan's output, reads its Variable or body.
func (p *Plan) Loops() ([]Loop, error) {
	var loops []Loop
	open := -1
	for i, n := range p.Nodes {
		if err := p.checkLoopInputs(loops, i); err != nil {
			return nil, err
		}
		switch n.Op.(type) {
		case Variable:
			if open >= 0 {
				return nil, fmt.Errorf("node %%%d: loops do not nest (%%%d is open)", i, open)
			}
			open = i
		case Fixpoint:
			if open < 0 || n.Inputs[0] != open || n.Inputs[1] <= open {
				return nil, fmt.Errorf("node %%%d: a Fixpoint reads the open Variable and a node of its body", i)
			}
			loops = append(loops, Loop{Var: open, Fixpoint: i})
			open = -1
		}
	}
	if open >= 0 {
		return nil, fmt.Errorf("Variable %%%d is never closed by a Fixpoint", open)
	}
	if len(loops) > 0 {
		return loops, p.checkLoopInputs(loops, len(p.Nodes))
	}
	return loops, nil
}

// checkLoopInputs checks that node i (or, for i == len(p.Nodes), the
// output) reads no node inside the closed loops.
func (p *Plan) checkLoopInputs(loops []Loop, i int) error {
	ins := []int{p.Output}
	if i < len(p.Nodes) {
		ins = p.Nodes[i].Inputs
	}
	who := fmt.Sprintf("node %%%d", i)
	if i == len(p.Nodes) {
		who = "the output"
	}
	for _, j := range ins {
		for _, l := range loops {
			if j >= l.Var && j < l.Fixpoint {
				return fmt.Errorf("%s reads %%%d inside the loop closed by %%%d", who, j, l.Fixpoint)
			}
		}
	}
	return nil
}
