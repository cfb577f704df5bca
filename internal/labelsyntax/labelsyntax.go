// Package labelsyntax checks label keys and values as the API server does,
// with its words: it restates IsLabelKey and IsLabelValue of
// k8s.io/apimachinery/pkg/api/validate/content (v0.37), whose package
// compiles five regular expressions at init, in every run of shipshape,
// for two functions. Here they compile on first use; the tests hold both
// functions to apimachinery's, messages included.
package labelsyntax

import (
	"fmt"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

const (
	labelKeyCharFmt    = "[A-Za-z0-9]"
	labelKeyExtCharFmt = "[-A-Za-z0-9_.]"
	labelKeyFmt        = "(" + labelKeyCharFmt + labelKeyExtCharFmt + "*)?" + labelKeyCharFmt
	labelKeyErrMsg     = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelKeyMaxLength  = 63

	labelValueFmt       = "(" + labelKeyFmt + ")?"
	labelValueErrMsg    = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueMaxLength = 63

	dns1123LabelFmt          = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt      = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainErrorMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1123SubdomainMaxLen   = 253
)

var (
	labelKeyRegexp         = lazyregexp.New("^" + labelKeyFmt + "$")
	labelValueRegexp       = lazyregexp.New("^" + labelValueFmt + "$")
	dns1123SubdomainRegexp = lazyregexp.New("^" + dns1123SubdomainFmt + "$")
)

// IsLabelKey returns why value is not a label key (an optional DNS
// subdomain prefix and '/', then a name), or nothing when it is one.
func IsLabelKey(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part "+emptyError())
		} else if msgs := isDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if len(name) == 0 {
		errs = append(errs, "name part "+emptyError())
	} else if len(name) > labelKeyMaxLength {
		errs = append(errs, "name part "+maxLenError(labelKeyMaxLength))
	}
	if !labelKeyRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsLabelValue returns why value is not a label value, or nothing when it
// is one.
func IsLabelValue(value string) []string {
	var errs []string
	if len(value) > labelValueMaxLength {
		errs = append(errs, maxLenError(labelValueMaxLength))
	}
	if !labelValueRegexp.MatchString(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func isDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > dns1123SubdomainMaxLen {
		errs = append(errs, maxLenError(dns1123SubdomainMaxLen))
	}
	if !dns1123SubdomainRegexp.MatchString(value) {
		errs = append(errs, regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

func maxLenError(length int) string { return fmt.Sprintf("must be no more than %d bytes", length) }

func emptyError() string { return "must be non-empty" }

// regexError says which expression value failed, with examples, in the
// API server's words.
func regexError(msg, re string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + re + "')")
	return b.String()
}
