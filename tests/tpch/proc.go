package tpch

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcMemory returns VmRSS and VmHWM (the peak RSS) of process pid in
// bytes, from /proc/<pid>/status. The test's watchdog and bench/tpch both
// read a server's memory with it.
func ProcMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if !ok || len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			hwm = n << 10
		}
	}
	return rss, hwm, sc.Err()
}
