package faults

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Point is one registered fault-injection point.
type Point struct {
	name string
	// fire is set while the point is armed: the next Inject that claims it
	// (swapping it to false) panics.
	fire atomic.Bool
}

// armedCount is the number of armed points: Inject's fast path reads only
// it, so a disarmed build pays one atomic load per hit.
var armedCount atomic.Int32

// registry holds every point by name. It is filled by package-level
// Register calls (program initialisation) and read-only afterwards except
// through Arm.
var registry = struct {
	sync.Mutex
	points map[string]*Point
}{points: map[string]*Point{}}

// Register declares a point named name (unique across the server); doc,
// one line saying where it is, documents the declaration. It panics on a duplicate name: the
// registry is filled at initialisation, so that is a programming error.
func Register(name, doc string) *Point {
	_ = doc
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.points[name]; dup {
		panic(fmt.Sprintf("faults: point %q registered twice", name))
	}
	p := &Point{name: name}
	registry.points[name] = p
	if enabled && slices.Contains(armedAtStart, name) {
		p.fire.Store(true)
		armedCount.Add(1)
	}
	return p
}

// armedAtStart names the points armed as they register, before anything
// runs (EDDY_TEST_FAULTS_ARM, comma-separated; only with
// EDDY_TEST_FAULTS=1): a point that start-up reaches (the log's replay)
// cannot wait for a session to arm it.
var armedAtStart = strings.Split(os.Getenv("EDDY_TEST_FAULTS_ARM"), ",")

// Inject panics if p is armed (once: the point disarms itself), and is
// otherwise a no-op costing one atomic load.
func (p *Point) Inject() {
	if armedCount.Load() == 0 {
		return
	}
	p.slow()
}

// slow is Inject once some point is armed.
func (p *Point) slow() {
	if p.fire.CompareAndSwap(true, false) {
		armedCount.Add(-1)
		panic(Injected{Point: p.name})
	}
}

// Injected is the value an armed point panics with.
type Injected struct{ Point string }

// Error names the point, as the XX000 error and the log line show it (an
// error, so that text and JSON logs alike print it so).
func (i Injected) Error() string { return fmt.Sprintf("injected fault at %s", i.Point) }

// enabled is read once from the environment: EDDY_TEST_FAULTS=1 allows
// arming (the server exposes it to tests only then).
var enabled = os.Getenv("EDDY_TEST_FAULTS") == "1"

// Enabled reports whether this process allows arming points.
func Enabled() bool { return enabled }

// Arm makes the point named name panic at its next hit (once). An empty
// name disarms every point. It fails for an unknown name or when faults
// are not Enabled.
func Arm(name string) error {
	if !enabled {
		return fmt.Errorf("fault injection is not enabled (EDDY_TEST_FAULTS=1)")
	}
	registry.Lock()
	defer registry.Unlock()
	if name == "" {
		for _, p := range registry.points {
			if p.fire.CompareAndSwap(true, false) {
				armedCount.Add(-1)
			}
		}
		return nil
	}
	p := registry.points[name]
	if p == nil {
		return fmt.Errorf("unknown fault point %q (known: %v)", name, namesLocked())
	}
	if p.fire.CompareAndSwap(false, true) {
		armedCount.Add(1)
	}
	return nil
}

// Armed reports whether the point named name is armed (it has not fired
// since it was armed).
func Armed(name string) bool {
	registry.Lock()
	defer registry.Unlock()
	p := registry.points[name]
	return p != nil && p.fire.Load()
}

// Names returns every registered point's name, sorted.
func Names() []string {
	registry.Lock()
	defer registry.Unlock()
	return namesLocked()
}

// namesLocked is Names with the registry locked.
func namesLocked() []string {
	out := make([]string, 0, len(registry.points))
	for n := range registry.points {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
