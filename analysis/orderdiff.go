package analysis

// OrderDiff is what a change does to one run's order.
type OrderDiff struct {
	Moved              []Move
	Appeared, Vanished []PlacedStep
}

// Empty reports whether the order did not change.
func (d OrderDiff) Empty() bool {
	return len(d.Moved) == 0 && len(d.Appeared) == 0 && len(d.Vanished) == 0
}

// Move is a step found in both orders at another place.
type Move struct {
	Label    string
	From, To int    // 0-based positions
	Of       [2]int // lengths of the two orders
}

// PlacedStep is a step in one order only, at At (0-based).
type PlacedStep struct {
	Label string
	At    int
}

// DiffOrder compares two orders of step labels: steps in both that are
// not in their longest common subsequence moved; the others appeared or
// vanished. A reviewer reads what a change does to the run from it.
func DiffOrder(b, w []string) (d OrderDiff) {
	n, m := len(b), len(w)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if b[i] == w[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	keptB, keptW := make([]bool, n), make([]bool, m)
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case b[i] == w[j]:
			keptB[i], keptW[j] = true, true
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	inW := map[string]int{}
	for j, l := range w {
		if _, ok := inW[l]; !ok {
			inW[l] = j
		}
	}
	inB := map[string]int{}
	for i, l := range b {
		if _, ok := inB[l]; !ok {
			inB[l] = i
		}
	}
	for i, l := range b {
		if keptB[i] {
			continue
		}
		if j, ok := inW[l]; ok {
			d.Moved = append(d.Moved, Move{Label: l, From: i, To: j, Of: [2]int{n, m}})
		} else {
			d.Vanished = append(d.Vanished, PlacedStep{l, i})
		}
	}
	for j, l := range w {
		if _, ok := inB[l]; !ok && !keptW[j] {
			d.Appeared = append(d.Appeared, PlacedStep{l, j})
		}
	}
	return d
}
