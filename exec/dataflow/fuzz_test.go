package dataflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the plan parser, which every restart
// runs over the plans stored in the catalog: it must return a plan or an
// error, never panic, and a plan it accepts must print to text that
// parses back to the same print (the round trip planView relies on).
// The seeds are the parse inputs of this package's golden files, and
// inputs fuzzing once found failing.
func FuzzParse(f *testing.F) {
	// Found by fuzzing: a time literal whose zone swallows its minutes.
	f.Add("%0 = Constant\n%1 = FlatMap funcs=[0('0Z0:00'::time)] <- %0")
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, block := range strings.Split(string(data), "\nparse\n")[1:] {
			if in, _, ok := strings.Cut(block, "\n----\n"); ok {
				f.Add(in)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		printed := p.String()
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("the print of an accepted plan does not parse: %v\n%s", err, printed)
		}
		if s := again.String(); s != printed {
			t.Fatalf("print changes on a round trip:\n%s\nthen\n%s", printed, s)
		}
	})
}
