package sql

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// IdleTimeoutOption is the WITH option of a Kafka source after which a
// partition that has delivered nothing stops holding the source's
// watermark back (Flink's withIdleness and scan.watermark.idle-timeout):
// the watermark is the minimum over the partitions active within the
// timeout, and rows a partition delivers after it went idle are late if
// the others took the watermark past them. A duration ('30s', '500ms',
// '2min'; a bare number is milliseconds); '0' turns idleness off, so a
// silent partition holds the watermark forever.
const IdleTimeoutOption = "scan.watermark.idle.timeout"

// DefaultIdleTimeout is the idle timeout of a Kafka source without the
// option: long enough that ordinary pauses of a live partition do not
// make its next rows late, short enough that a partition nobody writes
// to any more closes the source's windows within a minute.
const DefaultIdleTimeout = time.Minute

// sourceIdleTimeout returns a source's idle timeout (0: none). Only Kafka
// sources have partitions that can go idle.
func sourceIdleTimeout(def *SourceDef) (time.Duration, error) {
	if def.Connector != "kafka" {
		return 0, nil
	}
	v, ok := def.Options[IdleTimeoutOption]
	if !ok {
		return DefaultIdleTimeout, nil
	}
	return ParseIdleTimeout(v)
}

// ParseIdleTimeout reads an idle timeout value (see IdleTimeoutOption);
// a bad one is 22023.
func ParseIdleTimeout(v string) (time.Duration, error) {
	s := strings.ReplaceAll(strings.TrimSpace(strings.ToLower(v)), " ", "")
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond, nil
	}
	for _, u := range [][2]string{{"min", "m"}, {"sec", "s"}} {
		if strings.HasSuffix(s, u[0]) {
			s = strings.TrimSuffix(s, u[0]) + u[1]
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, repr.Errorf(repr.CodeInvalidParameter, "invalid %s %q: expected a duration such as '30s' or '500ms'", IdleTimeoutOption, v)
	}
	return d, nil
}

func sourceSeenKey(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/seen", id))
}

// noteActive records that the partitions of changes delivered something
// at wall-clock time now (µs), and gives partitions with a watermark but
// no activity on record (after a restart without it) now.
func (st *sourceState) noteActive(changes []Change, now int64) {
	if st.idle <= 0 {
		return
	}
	if st.seen == nil {
		st.seen = map[int32]int64{}
	}
	for _, c := range changes {
		st.seen[c.Partition] = now
	}
	for p := range st.parts {
		if _, ok := st.seen[p]; !ok {
			st.seen[p] = now
		}
	}
}

// activeMin is the smallest watermark of the partitions active within the
// idle timeout at now (all of them when idleness is off or none is
// active).
func (st *sourceState) activeMin(now int64) int64 {
	if st.idle <= 0 {
		return minWatermark(st.parts)
	}
	cutoff := now - st.idle.Microseconds()
	active := maps.Clone(st.parts)
	maps.DeleteFunc(active, func(p int32, _ int64) bool { return st.seen[p] < cutoff })
	if len(active) == 0 {
		return minWatermark(st.parts)
	}
	return minWatermark(active)
}

// encodeSeen encodes the partitions' last activity times (varint pairs in
// partition order).
func encodeSeen(seen map[int32]int64) []byte {
	var buf []byte
	for _, p := range slices.Sorted(maps.Keys(seen)) {
		buf = binary.AppendVarint(buf, int64(p))
		buf = binary.AppendVarint(buf, seen[p])
	}
	return buf
}

// decodeSeen is encodeSeen's inverse (nil for a malformed value: the
// partitions count as active from the next batch).
func decodeSeen(b []byte) map[int32]int64 {
	out := map[int32]int64{}
	for len(b) > 0 {
		p, k := binary.Varint(b)
		if k <= 0 {
			return nil
		}
		v, k2 := binary.Varint(b[k:])
		if k2 <= 0 {
			return nil
		}
		out[int32(p)] = v
		b = b[k+k2:]
	}
	return out
}
