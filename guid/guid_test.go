package guid_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/guid"
)

// {3D6FA8D0-FE05-11D0-9DDA-00C04FD7BA7C} (the kernel's Thread class), as
// Windows stores it.
var (
	threadDisk = []byte{0xD0, 0xA8, 0x6F, 0x3D, 0x05, 0xFE, 0xD0, 0x11, 0x9D, 0xDA, 0x00, 0xC0, 0x4F, 0xD7, 0xBA, 0x7C}
	threadText = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"
)

func TestWindowsByteOrder(t *testing.T) {
	assert.Equal(t, threadText, guid.FromWindows(threadDisk).String())
	var u uuid.UUID
	for i := range u {
		u[i] = 0xEE // ReadWindows must overwrite every byte
	}
	guid.ReadWindows(&u, threadDisk)
	assert.Equal(t, threadText, u.String())

	g := uuid.MustParse(threadText)
	w := guid.Windows(g)
	assert.Equal(t, threadDisk, w[:])
	assert.Equal(t, append([]byte("x"), threadDisk...), guid.AppendWindows([]byte("x"), g))
	b := make([]byte, 20)
	guid.PutWindows(b[2:], g)
	assert.Equal(t, threadDisk, b[2:18])
	assert.Equal(t, []byte{0, 0}, b[:2])
}

func TestAppendMatchesString(t *testing.T) {
	for _, s := range []string{
		"00000000-0000-0000-0000-000000000000", "68fdd900-4a3e-11d1-84f4-0000f80464e3",
		"ffffffff-ffff-ffff-ffff-ffffffffffff", "0123abcd-4567-89ef-fedc-ba9876543210",
		"00000000-0000-0000-0000-000000000001",
	} {
		g := uuid.MustParse(s)
		assert.Equal(t, "x"+s, string(guid.Append([]byte("x"), g)))
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		var buf [64]byte
		_ = guid.Append(buf[:0], uuid.MustParse(threadText))
	}))
}

func TestParse(t *testing.T) {
	want := uuid.MustParse(threadText)
	for _, s := range []string{threadText, strings.ToUpper(threadText), "{" + threadText + "}", "{" + strings.ToUpper(threadText) + "}"} {
		g, err := guid.Parse(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, g, s)
	}
	for _, s := range []string{
		"", "3d6fa8d0fe0511d09dda00c04fd7ba7c", "urn:uuid:" + threadText, "{" + threadText, threadText + "}",
		"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7g", "3d6fa8d0+fe05-11d0-9dda-00c04fd7ba7c", "(" + threadText + ")",
	} {
		_, err := guid.Parse(s)
		assert.ErrorIs(t, err, guid.ErrSyntax, s)
	}
}

func FuzzWindowsRoundTrip(f *testing.F) {
	f.Add(threadDisk)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < guid.Size {
			return
		}
		g := guid.FromWindows(b)
		w := guid.Windows(g)
		if string(w[:]) != string(b[:guid.Size]) {
			t.Fatalf("Windows(FromWindows(%x)) = %x", b[:guid.Size], w)
		}
		if got := string(guid.Append(nil, g)); got != g.String() {
			t.Fatalf("Append = %q, String = %q", got, g.String())
		}
		back, err := guid.Parse(g.String())
		if err != nil || back != g {
			t.Fatalf("Parse(%q) = %v, %v", g.String(), back, err)
		}
	})
}
