package tui

// coverage is the Source's coverage label for a row ("" when covered or
// when the Source cannot say): the views print it beside the row, never
// decide it.
func (m *Model) coverage(table, id string) string {
	if c, ok := m.src.(Coverer); ok {
		return c.Coverage(table, id)
	}
	return ""
}

// coverageMark is a label as the views print it after a value.
func (m *Model) coverageMark(table, id string) string {
	if l := m.coverage(table, id); l != "" {
		return " " + m.styles.Warning.Render("["+l+"]")
	}
	return ""
}
