package faults

import (
	"testing"
)

// catch runs fn and returns what it panicked with (nil if nothing).
func catch(fn func()) (r any) {
	defer func() { r = recover() }()
	fn()
	return nil
}

func TestArmFiresOnce(t *testing.T) {
	enabled = true
	defer func() { enabled = false }()
	p := Register("test.once", "a point for this test")
	if r := catch(p.Inject); r != nil {
		t.Fatalf("disarmed point panicked: %v", r)
	}
	if err := Arm("test.once"); err != nil {
		t.Fatal(err)
	}
	if !Armed("test.once") || armedCount.Load() != 1 {
		t.Fatalf("armed: %v, count %d", Armed("test.once"), armedCount.Load())
	}
	r := catch(p.Inject)
	if in, ok := r.(Injected); !ok || in.Point != "test.once" {
		t.Fatalf("armed point panicked with %v, want Injected{test.once}", r)
	}
	if r := catch(p.Inject); r != nil || armedCount.Load() != 0 || Armed("test.once") {
		t.Fatalf("point fired twice (%v) or stayed armed (count %d)", r, armedCount.Load())
	}
}

func TestArmErrors(t *testing.T) {
	if err := Arm("test.none"); err == nil {
		t.Fatal("arming without EDDY_TEST_FAULTS succeeded")
	}
	enabled = true
	defer func() { enabled = false }()
	if err := Arm("test.none"); err == nil {
		t.Fatal("arming an unknown point succeeded")
	}
	p := Register("test.disarm", "a point for this test")
	if err := Arm("test.disarm"); err != nil {
		t.Fatal(err)
	}
	if err := Arm(""); err != nil {
		t.Fatal(err)
	}
	if r := catch(p.Inject); r != nil || armedCount.Load() != 0 {
		t.Fatalf("disarmed point panicked (%v) or count %d", r, armedCount.Load())
	}
	if r := catch(func() { Register("test.disarm", "again") }); r == nil {
		t.Fatal("a duplicate name registered")
	}
}

// BenchmarkInjectDisarmed is the cost of a point on a hot path.
func BenchmarkInjectDisarmed(b *testing.B) {
	p := Register("test.bench", "a point for this benchmark")
	for b.Loop() {
		p.Inject()
	}
}

// TestArmedAtStart checks that a point named in EDDY_TEST_FAULTS_ARM is
// armed as it registers (when faults are enabled), and fires once.
func TestArmedAtStart(t *testing.T) {
	enabled, armedAtStart = true, []string{"test.other", "test.start"}
	defer func() { enabled, armedAtStart = false, nil }()
	p := Register("test.start", "a point armed from the environment")
	q := Register("test.notstart", "a point not named there")
	if r := catch(q.Inject); r != nil {
		t.Fatalf("a point not named panicked: %v", r)
	}
	if r, ok := catch(p.Inject).(Injected); !ok || r.Point != "test.start" {
		t.Fatalf("the point named panicked with %v, want Injected{test.start}", r)
	}
	if r := catch(p.Inject); r != nil || armedCount.Load() != 0 {
		t.Fatalf("fired twice (%v) or stayed armed (count %d)", r, armedCount.Load())
	}
}
