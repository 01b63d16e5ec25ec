package clients

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// client is one real client program the tests drive.
type client struct {
	name string // golden file testdata/<name>.golden; gaps are "<name>/<section>"
	dir  string // working directory, relative to this package
	// command returns the program's argv (the server's postgres:// URL is
	// appended), or skips t when the client is not installed.
	command func(t *testing.T) []string
}

// jdbcJar is where Debian's libpostgresql-jdbc-java installs pgjdbc.
const jdbcJar = "/usr/share/java/postgresql.jar"

// debianPython is Debian's interpreter, which sees the python3-* packages
// (a pyenv shim earlier on PATH would not).
const debianPython = "/usr/bin/python3"

// clientList is the client matrix, in the order the tests run it.
var clientList = []client{
	{name: "jdbc", dir: "java", command: jdbcCommand},
	{name: "psycopg2", dir: "python", command: pythonCommand("run_psycopg2.py", "psycopg2", "python3-psycopg2")},
	{name: "psycopg3", dir: "python", command: pythonCommand("run_psycopg3.py", "psycopg", "python3-psycopg")},
	{name: "sqlalchemy", dir: "python", command: pythonCommand("run_sqlalchemy.py", "sqlalchemy, pandas", "python3-sqlalchemy python3-pandas")},
	{name: "sqlalchemy2", dir: "python", command: sqlalchemy2Command},
	{name: "alembic", dir: "python", command: pythonCommand("run_alembic.py", "alembic, psycopg2", "python3-alembic python3-psycopg2")},
	{name: "node", dir: "node", command: nodeCommand},
}

// jdbcCommand runs java/Clients.java with the JDK's single-file launcher
// (one JVM, compiled in memory) and Debian's pgjdbc jar.
func jdbcCommand(t *testing.T) []string {
	java, err := exec.LookPath("java")
	if err != nil {
		missing(t, "java not found: install openjdk-17-jre-headless")
	}
	if _, err := os.Stat(jdbcJar); err != nil {
		missing(t, "%s not found: apt-get install libpostgresql-jdbc-java", jdbcJar)
	}
	return []string{java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", jdbcJar, "Clients.java"}
}

// pythonCommand runs python/<script> with Debian's python3 once the
// modules it imports are installed.
func pythonCommand(script, modules, packages string) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		if _, err := os.Stat(debianPython); err != nil {
			missing(t, "%s not found: apt-get install python3", debianPython)
		}
		if out, err := exec.Command(debianPython, "-c", "import "+modules).CombinedOutput(); err != nil {
			missing(t, "python3 cannot import %s: apt-get install %s (%s)", modules, packages, out)
		}
		return []string{debianPython, script}
	}
}

// sqla2Site is where python/fetch_sqla2.sh (run by .ci/run) extracts
// Debian trixie's SQLAlchemy 2.0 and typing-extensions, relative to python/.
const sqla2Site = ".sqla2/usr/lib/python3/dist-packages"

// sqlalchemy2Command runs python/run_sqlalchemy.py a second time, under
// SQLAlchemy 2.0 (PYTHONPATH puts it before bookworm's 1.4), once
// fetch_sqla2.sh has installed it and pandas is installed.
func sqlalchemy2Command(t *testing.T) []string {
	if _, err := os.Stat(debianPython); err != nil {
		missing(t, "%s not found: apt-get install python3", debianPython)
	}
	site, err := filepath.Abs(filepath.Join("python", sqla2Site))
	if err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(debianPython, "-c",
		"import sqlalchemy, pandas, psycopg; assert sqlalchemy.__version__.startswith('2.'), sqlalchemy.__version__")
	probe.Env = append(os.Environ(), "PYTHONPATH="+site)
	if out, err := probe.CombinedOutput(); err != nil {
		missing(t, "SQLAlchemy 2.0 not usable from %s: run tests/clients/python/fetch_sqla2.sh, "+
			"apt-get install python3-pandas python3-psycopg (%s)", site, out)
	}
	return []string{"/usr/bin/env", "PYTHONPATH=" + site, debianPython, "run_sqlalchemy.py"}
}

// nodeCommand runs node/clients.js once `npm ci` has installed its
// packages in node/node_modules.
func nodeCommand(t *testing.T) []string {
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node not found: install nodejs")
	}
	for _, pkg := range []string{"pg", "pg-cursor", "pg-copy-streams"} {
		if _, err := os.Stat(filepath.Join("node", "node_modules", pkg)); err != nil {
			missing(t, "node package %s not installed: run npm ci in tests/clients/node", pkg)
		}
	}
	return []string{node, "clients.js"}
}
