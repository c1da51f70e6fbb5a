package webui

// op is one line of a diff.
type op struct {
	Kind byte // ' ' in both, '-' only in a, '+' only in b
	Text string
	A, B int // 1-based line numbers in a and b; 0 when the line is not there
}

// maxEdits bounds the edit distance diffLines searches; past it the
// remaining lines are shown as removed then added (still a correct diff,
// just not the shortest).
const maxEdits = 2000

// diffLines returns a shortest edit script from a to b (Myers' O(ND)
// algorithm) after stripping the common prefix and suffix. exact is false
// when the distance exceeded maxEdits and the middle was shown as replaced
// whole. Memory is O(D²) for D edits, at most about maxEdits² ints.
func diffLines(a, b []string) (ops []op, exact bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i + 1, i + 1})
	}
	mid, exact := myers(a[pre:len(a)-suf], b[pre:len(b)-suf])
	for _, o := range mid {
		if o.A > 0 {
			o.A += pre
		}
		if o.B > 0 {
			o.B += pre
		}
		ops = append(ops, o)
	}
	for i := suf; i > 0; i-- {
		ia, ib := len(a)-i, len(b)-i
		ops = append(ops, op{' ', a[ia], ia + 1, ib + 1})
	}
	return ops, exact
}

// myers is the core of diffLines on the lines that differ.
func myers(a, b []string) ([]op, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaced(a, b), true
	}
	maxD := min(n+m, maxEdits)
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // v after each d, only the diagonals -d..d
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: insert b[y]
			} else {
				x = v[offset+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[offset-d:offset+d+1]...))
				return backtrack(a, b, trace), true
			}
		}
		trace = append(trace, append([]int(nil), v[offset-d:offset+d+1]...))
	}
	return replaced(a, b), false
}

// backtrack walks the trace of myers back from (len(a), len(b)).
func backtrack(a, b []string, trace [][]int) []op {
	x, y := len(a), len(b)
	var rev []op
	for d := len(trace) - 1; d >= 0; d-- {
		k := x - y
		if d == 0 {
			for x > 0 && y > 0 {
				x, y = x-1, y-1
				rev = append(rev, op{' ', a[x], x + 1, y + 1})
			}
			break
		}
		prev := trace[d-1] // diagonals -(d-1)..d-1 at index k+d-1
		get := func(k int) int { return prev[k+d-1] }
		var pk int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', a[x], x + 1, y + 1})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{'+', b[y], 0, y + 1})
		} else {
			x--
			rev = append(rev, op{'-', a[x], x + 1, 0})
		}
	}
	out := make([]op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out
}

// replaced is the diff that removes all of a and adds all of b.
func replaced(a, b []string) []op {
	ops := make([]op, 0, len(a)+len(b))
	for i, s := range a {
		ops = append(ops, op{'-', s, i + 1, 0})
	}
	for i, s := range b {
		ops = append(ops, op{'+', s, 0, i + 1})
	}
	return ops
}

// hunk is a run of changes with up to context unchanged lines around it.
type hunk struct {
	Ops []op
}

// hunks groups a diff into hunks with context unchanged lines on each side;
// unchanged runs longer than that between changes are left out.
func hunks(ops []op, context int) []hunk {
	var out []hunk
	var cur []op
	last := -1 // index of the last change in cur's source
	for i, o := range ops {
		if o.Kind == ' ' {
			continue
		}
		from := max(i-context, last+1)
		if last >= 0 && from > last+context+1 {
			// The gap is too wide: close the hunk after its trailing context.
			cur = append(cur, ops[last+1:last+1+context]...)
			out = append(out, hunk{cur})
			cur = nil
		} else if last >= 0 {
			from = last + 1
		}
		cur = append(cur, ops[from:i+1]...)
		last = i
	}
	if last >= 0 {
		cur = append(cur, ops[last+1:min(len(ops), last+1+context)]...)
		out = append(out, hunk{cur})
	}
	return out
}
