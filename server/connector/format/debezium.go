package format

import "github.com/eddydb/eddy/repr"

// debeziumJSON is FORMAT DEBEZIUM ENCODE JSON: Debezium change events,
// with or without the schema envelope.
type debeziumJSON struct{ *jsonDecoder }

// event is one Debezium change event's payload.
type event struct {
	op            byte // 'c', 'r', 'u', 'd', 't'; 0 if absent
	before, after repr.Row
	wrapped       bool // the payload was wrapped in {"payload": ...}
	null          bool // the wrapped payload was null
}

// Decode implements Decoder.
func (d *debeziumJSON) Decode(key, value []byte, out *Changes) error {
	if d.isNull(value) {
		return nil // the tombstone Debezium writes after a delete
	}
	d.s.reset(value)
	var ev event
	err := d.payload(&ev, out, 0)
	if err == nil {
		err = d.s.end()
	}
	if err != nil || ev.null {
		return err
	}
	mark := len(out.List)
	if err := d.apply(&ev, key, out); err != nil {
		out.List = out.List[:mark]
		return err
	}
	return nil
}

// payload reads an event object: before, after and op, or (at the top
// level only) a "payload" key holding them. Other keys are skipped.
func (d *debeziumJSON) payload(ev *event, out *Changes, depth int) error {
	if err := d.s.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.s.nextKey(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "before":
			ev.before, err = d.image(out, depth+1)
		case "after":
			ev.after, err = d.image(out, depth+1)
		case "op":
			err = d.op(ev)
		case "payload":
			if depth > 0 {
				_, _, _, err = d.s.value(depth + 1)
				break
			}
			ev.wrapped = true
			if ev.null = d.s.peek() == 'n'; ev.null {
				_, _, _, err = d.s.value(depth + 1)
				break
			}
			err = d.payload(ev, out, depth+1)
		default:
			_, _, _, err = d.s.value(depth + 1)
		}
		if err != nil {
			return err
		}
	}
}

// image reads a before or after image: null or a row object.
func (d *debeziumJSON) image(out *Changes, depth int) (repr.Row, error) {
	if d.s.peek() == 'n' {
		_, _, _, err := d.s.value(depth)
		return nil, err
	}
	row := out.newRow(len(d.cols))
	return row, d.object(row, depth)
}

// op reads the op field: a one-letter string.
func (d *debeziumJSON) op(ev *event) error {
	k, v, start, err := d.s.value(1)
	if err != nil {
		return err
	}
	if k != vString || len(v) != 1 {
		return repr.Errorf(repr.CodeInvalidParameter, "invalid Debezium op %s", d.s.b[start:d.s.i])
	}
	ev.op = v[0]
	return nil
}

// apply turns an event into changes.
func (d *debeziumJSON) apply(ev *event, key []byte, out *Changes) error {
	switch ev.op {
	case 'c', 'r':
		return d.emit(Insert, ev.after, "after", out)
	case 'u':
		if ev.before == nil {
			return d.emit(Upsert, ev.after, "after", out)
		}
		if err := d.emit(Delete, ev.before, "before", out); err != nil {
			return err
		}
		return d.emit(Insert, ev.after, "after", out)
	case 'd':
		if ev.before != nil {
			return d.emit(Delete, ev.before, "before", out)
		}
		return d.tombstone(key, out)
	case 't':
		return repr.Unsupported("Debezium truncate events")
	case 0:
		return repr.Errorf(repr.CodeInvalidParameter, "Debezium event without op")
	}
	return repr.Errorf(repr.CodeInvalidParameter, "invalid Debezium op %q", string(ev.op))
}

// emit appends a change of kind k for row (the image named name), which
// must be present; Upsert needs key columns.
func (d *debeziumJSON) emit(k Kind, row repr.Row, name string, out *Changes) error {
	if row == nil {
		return repr.Errorf(repr.CodeInvalidParameter, "Debezium op requires a non-null %q image", name)
	}
	if k == Upsert && len(d.keyCols) == 0 {
		return repr.Errorf(repr.CodeInvalidParameter, "Debezium update without a before image requires a primary key")
	}
	if err := checkKey(row, d.cols, d.keyCols); err != nil {
		return err
	}
	out.add(k, row, out.keyOf(row, d.keyCols))
	return nil
}

// tombstone appends a delete by the record key, for a delete event
// without a before image.
func (d *debeziumJSON) tombstone(key []byte, out *Changes) error {
	if len(d.keyCols) == 0 {
		return repr.Errorf(repr.CodeInvalidParameter, "Debezium delete without a before image requires a primary key")
	}
	k, err := d.recordKey(key, out)
	if err != nil {
		return err
	}
	out.add(Tombstone, nil, k)
	return nil
}
