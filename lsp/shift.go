package lsp

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// shift maps byte offsets of one document between the text an analysis
// read and the text the editor holds now. A burst of typing changes one
// region of a document; everything before it keeps its offsets and
// everything after it moves by the same amount, so an answer about a
// place outside that region can come from the last analysis at once
// instead of waiting seconds for the analysis of the new text (a hover
// during typing, the lenses of a file after a keystroke). What lies in
// the region has no counterpart: such requests wait for a fitting
// analysis.
//
// The edit itself is analysis.Shift (the same prefix and suffix the
// early cutoff moves a result through); what differs is what a span
// overlapping the region means: a request answers nothing there (span),
// where a layout edit's move stretches it (analysis.Shift.Span).
type shift struct {
	analysis.Shift
}

// newShift compares the text an analysis read with the current one.
func newShift(uri string, old, cur []byte) *shift {
	return &shift{analysis.NewShift(uri, old, cur)}
}

// toOld maps an offset of the current text to the analysed one; false
// inside the changed region.
func (m *shift) toOld(off int) (int, bool) {
	switch {
	case m == nil:
		return off, true
	case off <= m.Pre:
		return off, true
	case off >= m.CurEnd:
		return off - m.CurEnd + m.OldEnd, true
	}
	return 0, false
}

// span maps a span of the analysed text to the current one; false when it
// overlaps the changed region (the thing it names may be gone). Spans of
// other documents are unchanged.
func (m *shift) span(sp source.Span) (source.Span, bool) {
	if m == nil || sp.URI != m.URI {
		return sp, true
	}
	switch {
	case sp.End <= m.Pre:
		return sp, true
	case sp.Start >= m.OldEnd:
		d := m.CurEnd - m.OldEnd
		sp.Start += d
		sp.End += d
		return sp, true
	}
	return sp, false
}

// view is what a request about one document reads: a snapshot, and how
// that document's positions in it map to the current text (m nil: the
// snapshot read the current text).
type view struct {
	*snapshot
	m *shift
}

// span maps a span of the view's snapshot to the current text (see
// shift.span).
func (v view) span(sp source.Span) (source.Span, bool) { return v.m.span(sp) }
