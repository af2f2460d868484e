package outfile

import "os"

// Scratch creates a temporary file for data a run keeps aside (the
// unwrapped content of a compressed input, the packets of a capture
// waiting for its interfaces) and returns it with the function that
// closes it and removes it. Where the system lets an open file be removed
// (every one but Windows), it is removed at once: its data stays reachable
// through the file until it is closed, and nothing is left behind however
// the process ends, by a signal or a crash included.
func Scratch(pattern string) (*os.File, func() error, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, nil, err
	}
	name := f.Name()
	if os.Remove(name) == nil {
		return f, f.Close, nil
	}
	return f, func() error {
		err := f.Close()
		if rerr := os.Remove(name); err == nil {
			err = rerr
		}
		return err
	}, nil
}
