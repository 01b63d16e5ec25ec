package nexmark

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// Column is the name and type of one column of a Nexmark table.
type Column = connector.Column

// Defaults of the options. DefaultBaseTime is 2024-01-01 00:00:00 UTC, fixed
// so that runs repeat.
const (
	DefaultEventRate = 100_000
	DefaultBaseTime  = 1_704_067_200_000
	DefaultSeed      = 0
)

// maxBaseTime bounds nexmark.base.time (in ms, either side of the Unix
// epoch) well inside the timestamp range, so event times never overflow.
const maxBaseTime = 100_000_000_000_000

// Config is the configuration of one Nexmark generator. Two generators with
// equal configs produce equal sequences.
type Config struct {
	// EventRate is events per second of event time (nexmark.event.rate); it
	// sets the spacing of event timestamps, not the emission speed. > 0.
	EventRate int64
	// NumEvents stops the sequence after this many events
	// (nexmark.event.num); 0 means unbounded.
	NumEvents int64
	// Seed selects the sequence (nexmark.seed).
	Seed uint64
	// BaseTime is the event time of event 0 in ms since the Unix epoch
	// (nexmark.base.time).
	BaseTime int64
	// MaxEmitSpeed asks the runtime to emit as fast as possible rather than
	// at EventRate in wall-clock time (nexmark.max.emit.speed). Informational:
	// the generator ignores it.
	MaxEmitSpeed bool
}

// DefaultConfig returns the configuration used when no option is given.
func DefaultConfig() Config {
	return Config{EventRate: DefaultEventRate, Seed: DefaultSeed, BaseTime: DefaultBaseTime, MaxEmitSpeed: true}
}

// TableType is the kind of a Nexmark event and of the source that keeps it.
type TableType uint8

// The three event types.
const (
	Person TableType = iota
	Auction
	Bid
)

// String returns the nexmark.table.type spelling of t.
func (t TableType) String() string {
	switch t {
	case Person:
		return "person"
	case Auction:
		return "auction"
	case Bid:
		return "bid"
	}
	return "TableType(" + strconv.Itoa(int(t)) + ")"
}

var (
	personColumns = []Column{
		{Name: "id", Type: repr.Int8}, {Name: "name", Type: repr.Varchar(0)},
		{Name: "email_address", Type: repr.Varchar(0)}, {Name: "credit_card", Type: repr.Varchar(0)},
		{Name: "city", Type: repr.Varchar(0)}, {Name: "state", Type: repr.Varchar(0)},
		{Name: "date_time", Type: repr.Timestamp}, {Name: "extra", Type: repr.Varchar(0)},
	}
	auctionColumns = []Column{
		{Name: "id", Type: repr.Int8}, {Name: "item_name", Type: repr.Varchar(0)},
		{Name: "description", Type: repr.Varchar(0)}, {Name: "initial_bid", Type: repr.Int8},
		{Name: "reserve", Type: repr.Int8}, {Name: "date_time", Type: repr.Timestamp},
		{Name: "expires", Type: repr.Timestamp}, {Name: "seller", Type: repr.Int8},
		{Name: "category", Type: repr.Int8}, {Name: "extra", Type: repr.Varchar(0)},
	}
	bidColumns = []Column{
		{Name: "auction", Type: repr.Int8}, {Name: "bidder", Type: repr.Int8},
		{Name: "price", Type: repr.Int8}, {Name: "channel", Type: repr.Varchar(0)},
		{Name: "url", Type: repr.Varchar(0)}, {Name: "date_time", Type: repr.Timestamp},
		{Name: "extra", Type: repr.Varchar(0)},
	}
)

// Columns returns the columns of t's rows, in row order, exactly as
// queries.sql declares the source. The caller must not modify the slice.
func (t TableType) Columns() []Column {
	switch t {
	case Person:
		return personColumns
	case Auction:
		return auctionColumns
	}
	return bidColumns
}

// The option keys ParseOptions reads.
const (
	OptTableType    = "nexmark.table.type"
	OptEventRate    = "nexmark.event.rate"
	OptEventNum     = "nexmark.event.num"
	OptSeed         = "nexmark.seed"
	OptBaseTime     = "nexmark.base.time"
	OptMaxEmitSpeed = "nexmark.max.emit.speed"
	// OptSplitNum is accepted for RisingWave compatibility and ignored: one
	// generator serves a source.
	OptSplitNum = "nexmark.split.num"
)

// ParseOptions reads the WITH options of a CREATE SOURCE. Keys are matched
// case-insensitively; keys outside the nexmark.* namespace (such as
// connector) belong to the caller and are ignored; an unknown nexmark.* key,
// a missing nexmark.table.type or an invalid value is a 22023 error naming
// the option. Absent options take DefaultConfig's values.
func ParseOptions(opts map[string]string) (Config, TableType, error) {
	cfg := DefaultConfig()
	var tt TableType
	haveType := false
	for _, k := range sortedKeys(opts) {
		v := opts[k]
		var err error
		switch strings.ToLower(k) {
		case OptTableType:
			tt, err = parseTableType(k, v)
			haveType = true
		case OptEventRate:
			cfg.EventRate, err = parseInt(k, v, 1, 1_000_000_000_000)
		case OptEventNum:
			cfg.NumEvents, err = parseInt(k, v, 0, 1_000_000_000_000_000_000)
		case OptSeed:
			cfg.Seed, err = parseUint(k, v)
		case OptBaseTime:
			cfg.BaseTime, err = parseInt(k, v, -maxBaseTime, maxBaseTime)
		case OptMaxEmitSpeed:
			cfg.MaxEmitSpeed, err = parseBool(k, v)
		case OptSplitNum:
			_, err = parseInt(k, v, 1, 1<<31)
		default:
			if strings.HasPrefix(strings.ToLower(k), "nexmark.") {
				err = repr.Errorf(repr.CodeInvalidParameter, "unrecognized option %q", k).
					WithHint("Valid nexmark options: %s, %s, %s, %s, %s, %s.", OptTableType, OptEventRate,
						OptEventNum, OptSeed, OptBaseTime, OptMaxEmitSpeed)
			}
		}
		if err != nil {
			return Config{}, 0, err
		}
	}
	if !haveType {
		return Config{}, 0, repr.Errorf(repr.CodeInvalidParameter, "option %q is required", OptTableType).
			WithHint("Set %s to person, auction or bid.", OptTableType)
	}
	return cfg, tt, nil
}
