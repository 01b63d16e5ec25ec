// Package are translates PostgreSQL's regular expressions (Henry Spencer's
// Advanced Regular Expressions, "AREs", chapter 9.7.3 of the PostgreSQL
// manual) into the syntax of Go's regexp package (RE2), and compiles them
// with PostgreSQL's matching rules (leftmost-longest). It is the one
// translation behind the SQL operators ~ ~* !~ !~*, the regexp_* functions,
// substring(... FROM pattern), SIMILAR TO and jsonpath's like_regex, which
// PostgreSQL all run on the same ARE engine.
//
// The translation rewrites what RE2 spells differently (character-entry
// escapes such as \b for backspace, \B for a backslash, \e, \cX, \uXXXX,
// octal \0nn; the constraint escapes \A \Z \y \Y, and \m \M where their
// context decides them; [[.c.]] and [[=c=]]; \s with the vertical tab;
// expanded syntax x; literal patterns q and ***=; embedded options (?i)),
// maps PostgreSQL's flags (i c n m s p w x q t) onto RE2 flag groups and
// brackets (newline-sensitive modes keep [^...] off newlines), and refuses
// with 0A000, naming the construct, what RE2 cannot run: back references,
// lookahead and lookbehind constraints, non-greedy quantifiers,
// BRE and ERE syntax (flags b and e), and collating element names. RE2
// syntax an ARE rejects (\pL, (?P<n>...), \z) fails with 2201B as
// PostgreSQL does.
//
// Character classes ([[:alpha:]], \w, \s, ...) are PostgreSQL's in the
// C.UTF-8 locale over all of Unicode (classes.go), and so are the word
// constraints \y \Y \m \M: RE2 decides \b on ASCII and has no \m or \M,
// so a pattern with one runs on a Pike VM of this package (vm.go) over the
// program regexp/syntax compiles, with Unicode word context and RE2's
// leftmost-longest rule. Remaining difference, documented rather than
// hidden: subexpression captures follow RE2's leftmost-longest rules,
// which agree with an ARE's for patterns without non-greedy quantifiers.
package are
