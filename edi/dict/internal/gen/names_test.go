package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCamelToWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"DocumentNameCode", "Document name code"},
		{"NameAndAddress", "Name and address"},
		{"PartyFunctionCodeQualifier", "Party function code qualifier"},
		{"UnitedNationsDangerousGoods(undg)Identifier", "United nations dangerous goods (UNDG) identifier"},
		{"SyntaxErrorCoded", "Syntax error coded"},
		{"EANCode", "EAN code"},
		{"Address", "Address"},
		{"", ""},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, camelToWords(tc.in), tc.in)
	}
}

func TestBetterName(t *testing.T) {
	require.Equal(t, "Date/time/period", betterName("Date or time or period", "Date/time/period"))
	require.Equal(t, "Name and address", betterName("Name and address", "Name and address"))
	require.Equal(t, "Document name code", betterName("Document name code", "Document/message name, coded"))
	require.Equal(t, "Syntax error, coded", betterName("Syntax error coded", "Syntax error, coded"))
	require.Equal(t, "Party name", betterName("Party name", ""))
}
