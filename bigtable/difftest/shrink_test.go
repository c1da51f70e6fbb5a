package difftest

// Simplification of single ops for the shrinker: each candidate is the op
// with one part taken away. Candidates must stay within what the generator
// may produce (checkFilter), or a shrunk log could fail for a reason the
// generator deliberately avoids.

// checkFilter reports whether f obeys the generator's rules for input c
// (see fctx) and describes its output, as gen.filter does.
func checkFilter(f *filterSpec, c fctx) (out fctx, strips, ok bool) {
	switch f.kind {
	case fChain:
		if len(f.subs) < 2 {
			return c, false, false
		}
		cur := c
		for _, s := range f.subs {
			o, st, ok := checkFilter(s, cur)
			if !ok {
				return c, false, false
			}
			cur, strips = o, strips || st
		}
		return cur, strips, true
	case fInterleave:
		if len(f.subs) < 2 {
			return c, false, false
		}
		out = c
		for _, s := range f.subs {
			o, st, ok := checkFilter(s, c)
			if !ok {
				return c, false, false
			}
			strips = strips || st
			out.mixed = out.mixed || o.mixed
		}
		out.mixed = out.mixed || strips
		return out, strips, true
	case fCondition:
		if _, _, ok := checkFilter(f.subs[0], c); !ok {
			return c, false, false
		}
		out = fctx{single: true}
		for _, s := range f.subs[1:] {
			if s == nil {
				continue
			}
			o, st, ok := checkFilter(s, c)
			if !ok {
				return c, false, false
			}
			out.single = out.single && o.single
			out.mixed = out.mixed || o.mixed
			strips = strips || st
		}
		return out, strips, true
	case fFamily:
		out = c
		for _, fam := range families {
			out.single = out.single || f.pattern == fam
		}
		return out, false, true
	case fColumnRange:
		out = c
		out.single = true
		return out, false, true
	case fLatestN:
		return c, false, !c.mixed
	case fCellsPerRowLimit, fCellsPerRowOffset:
		return c, false, c.single && !c.mixed
	case fStripValue:
		return c, true, true
	}
	return c, false, true
}

func filterOK(f *filterSpec) bool {
	if f == nil {
		return true
	}
	_, _, ok := checkFilter(f, fctx{})
	return ok
}

// filterSimplifications lists f with one part removed: a composite replaced
// by one of its subs, one sub dropped, or a sub simplified.
func filterSimplifications(f *filterSpec) []*filterSpec {
	var out []*filterSpec
	if f.kind == fCondition {
		for i, s := range f.subs {
			if s == nil {
				continue
			}
			out = append(out, s)
			if i > 0 {
				c := *f
				c.subs = append([]*filterSpec{}, f.subs...)
				c.subs[i] = nil
				out = append(out, &c)
			}
			for _, ss := range filterSimplifications(s) {
				c := *f
				c.subs = append([]*filterSpec{}, f.subs...)
				c.subs[i] = ss
				out = append(out, &c)
			}
		}
		return out
	}
	if f.kind != fChain && f.kind != fInterleave {
		return nil
	}
	out = append(out, f.subs...)
	for i := range f.subs {
		if len(f.subs) > 2 {
			c := *f
			c.subs = append(append([]*filterSpec{}, f.subs[:i]...), f.subs[i+1:]...)
			out = append(out, &c)
		}
		for _, s := range filterSimplifications(f.subs[i]) {
			c := *f
			c.subs = append([]*filterSpec{}, f.subs...)
			c.subs[i] = s
			out = append(out, &c)
		}
	}
	return out
}

func without[T any](xs []T, i int) []T {
	return append(append([]T{}, xs[:i]...), xs[i+1:]...)
}

func mutsSimplifications(ms []mutOp) [][]mutOp {
	// Only the first mutation may be an invalid one (see gen.muts), and
	// dropping any one keeps it so.
	var out [][]mutOp
	for i := range ms {
		if len(ms) > 1 {
			out = append(out, without(ms, i))
		}
	}
	return out
}

// opSimplifications lists o with one part removed. Every candidate is valid
// for the generator's rules.
func opSimplifications(o op) []op {
	var out []op
	add := func(c op) {
		if filterOK(c.filter) && filterOK(c.cond) {
			out = append(out, c)
		}
	}
	switch o.kind {
	case opApply:
		for _, ms := range mutsSimplifications(o.muts) {
			c := o
			c.muts = ms
			add(c)
		}
	case opCond:
		if o.cond != nil {
			c := o
			c.cond = nil
			add(c)
			for _, f := range filterSimplifications(o.cond) {
				c := o
				c.cond = f
				add(c)
			}
		}
		if o.mtrue != nil {
			c := o
			c.mtrue = nil
			add(c)
			for _, ms := range mutsSimplifications(o.mtrue) {
				c := o
				c.mtrue = ms
				add(c)
			}
		}
		if o.mfalse != nil {
			c := o
			c.mfalse = nil
			add(c)
			for _, ms := range mutsSimplifications(o.mfalse) {
				c := o
				c.mfalse = ms
				add(c)
			}
		}
	case opBulk:
		for i := range o.bulkRows {
			if len(o.bulkRows) > 1 {
				c := o
				c.bulkRows, c.bulkMuts = without(o.bulkRows, i), without(o.bulkMuts, i)
				add(c)
			}
			for _, ms := range mutsSimplifications(o.bulkMuts[i]) {
				c := o
				c.bulkMuts = append([][]mutOp{}, o.bulkMuts...)
				c.bulkMuts[i] = ms
				add(c)
			}
		}
	case opRMW:
		for i := range o.rules {
			if len(o.rules) > 1 {
				c := o
				c.rules = without(o.rules, i)
				add(c)
			}
		}
	case opReadRow, opReadRows:
		if o.filter != nil {
			c := o
			c.filter = nil
			add(c)
			for _, f := range filterSimplifications(o.filter) {
				c := o
				c.filter = f
				add(c)
			}
		}
		if o.limit != 0 {
			c := o
			c.limit = 0
			add(c)
		}
		if o.stopAfter != 0 {
			c := o
			c.stopAfter = 0
			add(c)
		}
		if o.iter {
			c := o
			c.iter = false
			add(c)
		}
		switch o.rs.kind {
		case rsRangeList:
			for _, r := range o.rs.ranges {
				c := o
				c.rs = rowSetSpec{kind: rsRange, ranges: []rangeSpec{r}}
				add(c)
			}
		case rsList:
			for i := range o.rs.keys {
				c := o
				c.rs = rowSetSpec{kind: rsList, keys: without(o.rs.keys, i)}
				add(c)
			}
		}
	}
	return out
}
