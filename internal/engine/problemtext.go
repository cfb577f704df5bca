package engine

import (
	"strings"

	"github.com/shipshape-dev/shipshape/internal/render"
)

// maxMessage is about as long as a finding's message gets in text output;
// what does not fit goes to its Detail (json, sarif, lint -v).
const maxMessage = 200

// problemText is the message and detail of a root that was not rendered.
// The message leads with the cause: the entry and what is wrong with it
// (p.Cause), else p's own message (msg, its paths shown relative); then
// the tails (a hint, which files are judged as written) while they fit in
// maxMessage. The detail is kustomize's whole error, when the cause stands
// for it, and the tails that did not fit.
func problemText(relPaths func(string) string, p *render.Problem, msg string, tails []string) (message, detail string) {
	var details []string
	switch {
	case p.Cause != "":
		message = relPaths(p.Cause)
		details = append(details, "kustomize: "+msg)
	case p.Refused:
		message = "the root is not rendered: " + msg
	default:
		message = "kustomize cannot build the root: " + msg
	}
	for _, tail := range tails {
		if len(message)+len(tail) <= maxMessage {
			message += tail
		} else {
			details = append(details, strings.TrimLeft(tail, " ;(")) // a sentence of its own
		}
	}
	return message, strings.Join(details, "\n")
}
