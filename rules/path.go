package rules

// join appends a relative path such as "matchLabels.app" to a prefix.
func join(prefix, rel string) string {
	switch {
	case prefix == "":
		return rel
	case rel == "" || rel[0] == '[':
		return prefix + rel
	}
	return prefix + "." + rel
}
