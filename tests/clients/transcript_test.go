package clients

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// transcript is a client program's output split into its "## name"
// sections, in order.
type transcript struct {
	names  []string
	bodies map[string]string
}

// parseTranscript splits output into sections; text before the first
// "## " line is kept under the name "".
func parseTranscript(out string) transcript {
	tr := transcript{bodies: map[string]string{}}
	name := ""
	var body strings.Builder
	flush := func() {
		if _, dup := tr.bodies[name]; !dup {
			tr.names = append(tr.names, name)
		}
		tr.bodies[name] += body.String()
		body.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "## ") {
			flush()
			name = strings.TrimSpace(line[3:])
			continue
		}
		body.WriteString(line)
	}
	flush()
	return tr
}

// readGaps reads testdata/gaps: lines "client/section: reason" naming the
// sections where Eddy is known to differ from PostgreSQL.
func readGaps(t *testing.T) map[string]string {
	f, err := os.Open("testdata/gaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gaps := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("testdata/gaps: %q is not \"client/section: reason\"", line)
		}
		gaps[key] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return gaps
}

// compareTranscripts fails t for every section of want that got lacks or
// prints differently, unless gaps lists it, and for every listed gap of
// this client that no longer differs.
func compareTranscripts(t *testing.T, client, want, got string, gaps map[string]string) {
	t.Helper()
	w, g := parseTranscript(want), parseTranscript(got)
	for _, name := range w.names {
		key := client + "/" + name
		gotBody, ok := g.bodies[name]
		same := ok && gotBody == w.bodies[name]
		reason, isGap := gaps[key]
		switch {
		case same && isGap:
			t.Errorf("%s: listed in testdata/gaps (%s) but now matches PostgreSQL: remove it", key, reason)
		case !same && isGap:
			t.Logf("%s: known gap: %s", key, reason)
		case !ok:
			t.Errorf("%s: section missing from the transcript\n--- got ---\n%s", key, got)
		case !same:
			t.Errorf("%s differs from PostgreSQL\n--- want ---\n%s--- got ---\n%s", key, w.bodies[name], gotBody)
		}
	}
	for _, name := range g.names {
		if _, ok := w.bodies[name]; !ok {
			t.Errorf("%s/%s: section not in the golden transcript\n%s", client, name, g.bodies[name])
		}
	}
}
