package kafka

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Startup modes: where a source without stored offsets starts reading.
const (
	StartEarliest  = "earliest"  // the first retained record of every partition
	StartLatest    = "latest"    // only records produced after the source starts
	StartTimestamp = "timestamp" // the first record at or after StartupMillis
)

// Config is a Kafka connection and topic, from CREATE SOURCE/TABLE ...
// WITH (...) options.
type Config struct {
	Brokers       []string
	Topic         string
	StartupMode   string // StartEarliest, StartLatest or StartTimestamp
	StartupMillis int64  // for StartTimestamp: Unix milliseconds
	ClientID      string
	// ReadUncommitted reads records of open and aborted transactions too
	// (properties.isolation.level = 'read_uncommitted'); the default is
	// read_committed.
	ReadUncommitted bool
	FetchMaxBytes   int32         // 0: franz-go's default
	FetchMaxWait    time.Duration // 0: franz-go's default
	// Dial, when set, opens every connection to a broker, the seed
	// brokers and those the cluster advertises alike (the server's
	// --allow-connect check); not an option.
	Dial func(ctx context.Context, network, host string) (net.Conn, error)
}

// ParseOptions reads a Config from WITH options (keys lower-case):
//
//	connector                       'kafka' (if present)
//	topic                           required
//	properties.bootstrap.server     required: comma-separated host:port list
//	                                (properties.bootstrap.servers is an alias)
//	scan.startup.mode               'earliest' (default) | 'latest' | 'timestamp'
//	scan.startup.timestamp.millis   start at this time (implies 'timestamp')
//	scan.watermark.idle.timeout     when a silent partition stops holding the
//	                                watermark back (the engine reads it)
//	properties.client.id            client id sent to the brokers
//	properties.isolation.level      'read_committed' (default) | 'read_uncommitted'
//	properties.fetch.max.bytes      bytes per fetch response
//	properties.fetch.max.wait.ms    long-poll wait of a fetch
//	properties.security.protocol    'plaintext' only
//
// Other properties.* keys are 0A000 (unsupported Kafka property), other
// scan.* keys are 22023. Keys outside these namespaces (format options,
// on_error, watermarks) belong to other layers and are ignored here.
func ParseOptions(opts map[string]string) (Config, error) {
	cfg := Config{StartupMode: StartEarliest}
	if c, ok := opts["connector"]; ok && !strings.EqualFold(c, "kafka") {
		return cfg, errOption("connector %q is not kafka", c)
	}
	for k, v := range opts {
		if err := cfg.set(k, v); err != nil {
			return cfg, err
		}
	}
	switch {
	case cfg.Topic == "":
		return cfg, errOption("missing option topic")
	case len(cfg.Brokers) == 0:
		return cfg, errOption("missing option properties.bootstrap.server")
	case cfg.StartupMode == StartTimestamp && opts["scan.startup.timestamp.millis"] == "":
		return cfg, errOption("scan.startup.mode 'timestamp' needs scan.startup.timestamp.millis")
	}
	return cfg, nil
}

// errOption is a 22023 error about a WITH option.
func errOption(format string, args ...any) error {
	return repr.Errorf(repr.CodeInvalidParameter, format, args...)
}

// set applies one option.
func (cfg *Config) set(k, v string) error {
	switch k {
	case "topic":
		cfg.Topic = v
	case "properties.bootstrap.server", "properties.bootstrap.servers":
		cfg.Brokers = splitBrokers(v)
	case "scan.startup.mode":
		m := strings.ToLower(v)
		if m != StartEarliest && m != StartLatest && m != StartTimestamp {
			return errOption("invalid scan.startup.mode %q: expected earliest, latest or timestamp", v)
		}
		if cfg.StartupMode != StartTimestamp { // the timestamp option wins
			cfg.StartupMode = m
		}
	case "scan.watermark.idle.timeout":
		// the engine's (it computes the watermark): sql.ParseIdleTimeout
	case "scan.startup.timestamp.millis":
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return errOption("invalid scan.startup.timestamp.millis %q", v)
		}
		cfg.StartupMode, cfg.StartupMillis = StartTimestamp, ms
	default:
		return cfg.setProperty(k, v)
	}
	return nil
}

// setProperty applies a properties.* option; other keys outside scan.* are
// ignored.
func (cfg *Config) setProperty(k, v string) error {
	switch k {
	case "properties.client.id":
		cfg.ClientID = v
	case "properties.isolation.level":
		switch strings.ToLower(v) {
		case "read_committed":
			cfg.ReadUncommitted = false
		case "read_uncommitted":
			cfg.ReadUncommitted = true
		default:
			return errOption("invalid properties.isolation.level %q", v)
		}
	case "properties.fetch.max.bytes":
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n <= 0 {
			return errOption("invalid properties.fetch.max.bytes %q", v)
		}
		cfg.FetchMaxBytes = int32(n)
	case "properties.fetch.max.wait.ms":
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n <= 0 {
			return errOption("invalid properties.fetch.max.wait.ms %q", v)
		}
		cfg.FetchMaxWait = time.Duration(n) * time.Millisecond
	case "properties.security.protocol":
		if !strings.EqualFold(v, "plaintext") {
			return repr.Unsupported("Kafka security protocol %q", v)
		}
	default:
		switch {
		case strings.HasPrefix(k, "properties."):
			return repr.Unsupported("Kafka property %q", strings.TrimPrefix(k, "properties."))
		case strings.HasPrefix(k, "scan."):
			return errOption("unrecognized option %q", k)
		}
	}
	return nil
}

// splitBrokers splits a comma-separated broker list, dropping blanks.
func splitBrokers(v string) []string {
	var out []string
	for _, b := range strings.Split(v, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// clientOpts are the franz-go options every client of cfg shares.
func (cfg Config) clientOpts() []kgo.Opt {
	opts := append([]kgo.Opt{kgo.SeedBrokers(cfg.Brokers...)}, cfg.BaseOpts()...)
	if cfg.ClientID != "" {
		opts = append(opts, kgo.ClientID(cfg.ClientID))
	}
	return opts
}

// BaseOpts are the options every client of cfg needs besides its seed
// brokers: no client metrics, and Dial when set.
func (cfg Config) BaseOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.DisableClientMetrics()}
	if cfg.Dial != nil {
		opts = append(opts, kgo.Dialer(cfg.Dial))
	}
	return opts
}

// consumerOpts are the options of a Reader's client, consuming the given
// partitions of the topic.
func (cfg Config) consumerOpts(parts map[int32]kgo.Offset) []kgo.Opt {
	opts := append(cfg.clientOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: parts}),
		kgo.KeepControlRecords(),
		// A stored offset that retention deleted resets to the earliest
		// retained one (the records in between are gone); kgo reports it.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if !cfg.ReadUncommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if cfg.FetchMaxBytes > 0 {
		opts = append(opts, kgo.FetchMaxBytes(cfg.FetchMaxBytes))
	}
	if cfg.FetchMaxWait > 0 {
		opts = append(opts, kgo.FetchMaxWait(cfg.FetchMaxWait))
	}
	return opts
}
