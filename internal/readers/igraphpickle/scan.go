package igraphpickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// maxNumberText bounds the text of an INT, LONG or FLOAT opcode. CPython
// refuses int() of more than 4300 digits; big.Int parsing of a longer one
// would cost time out of proportion to the file.
const maxNumberText = 4400

// scan walks every opcode of a pickle before anything is decoded. It checks
// that each length argument fits in the bytes that remain, so the decoder
// never allocates a buffer the file cannot fill, and it refuses opcodes that
// name code by text (GLOBAL, INST with a disallowed name), persistent ids,
// extension codes and out-of-band buffers. Names reached through
// STACK_GLOBAL are checked by the decoder's FindClass.
func scan(b []byte) error {
	return ScanRestricted(b, allowed, rejectGlobal, "an igraph pickle")
}

// ScanRestricted is scan for another restricted unpickler (the Qdrant local
// reader's): allow says which GLOBAL/INST names may appear, reject words
// the refusal, what names the kind of pickle in messages.
func ScanRestricted(b []byte, allow func(module, name string) bool, reject func(module, name string) error, what string) error {
	i := 0
	need := func(n uint64, what string) error {
		if n > uint64(len(b)-i) {
			return fmt.Errorf("opcode at byte %d: %s of %d bytes runs past the end of the file (%d bytes left)", i, what, n, len(b)-i)
		}
		return nil
	}
	line := func(max int) ([]byte, error) {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return nil, fmt.Errorf("opcode at byte %d: argument line has no end", i)
		}
		if max > 0 && j > max {
			return nil, fmt.Errorf("opcode at byte %d: argument line of %d bytes exceeds %d", i, j, max)
		}
		l := b[i : i+j]
		i += j + 1
		return l, nil
	}
	sawStop := false
	for i < len(b) {
		at := i
		op := b[i]
		i++
		var n uint64
		switch op {
		// no argument
		case '(', '.', '0', '1', '2', 'N', 'R', 'a', 'b', 'd', '}', 'e', 'l', ']', 'o', 's', 't', ')', 'u',
			0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94:
			if op == '.' {
				sawStop = true
			}
		case 'K', 'h', 'q', 0x80: // one byte
			n = 1
		case 'M': // two bytes
			n = 2
		case 'J', 'j', 'r': // four bytes
			n = 4
		case 'G': // eight bytes
			n = 8
		case 'F', 'I', 'L':
			if _, err := line(maxNumberText); err != nil {
				return err
			}
			continue
		case 'S', 'V', 'g', 'p':
			if _, err := line(0); err != nil {
				return err
			}
			continue
		case 'c', 'i':
			mod, err := line(0)
			if err != nil {
				return err
			}
			name, err := line(0)
			if err != nil {
				return err
			}
			if !allow(string(mod), string(name)) {
				return reject(string(mod), string(name))
			}
			continue
		case 'U', 'C', 0x8c, 0x8a: // one-byte length
			if err := need(1, "length"); err != nil {
				return err
			}
			n = uint64(b[i])
			i++
		case 'T', 'X', 'B', 0x8b: // four-byte length
			if err := need(4, "length"); err != nil {
				return err
			}
			n = uint64(binary.LittleEndian.Uint32(b[i:]))
			i += 4
		case 0x8d, 0x8e, 0x96: // eight-byte length
			if err := need(8, "length"); err != nil {
				return err
			}
			n = binary.LittleEndian.Uint64(b[i:])
			i += 8
		case 0x95: // FRAME: the frame's opcodes follow and are scanned in turn
			if err := need(8, "frame size"); err != nil {
				return err
			}
			size := binary.LittleEndian.Uint64(b[i:])
			i += 8
			if err := need(size, "frame"); err != nil {
				return err
			}
			continue
		case 'P', 'Q':
			return fmt.Errorf("opcode at byte %d: persistent ids are not part of %s", at, what)
		case 0x82, 0x83, 0x84:
			return fmt.Errorf("opcode at byte %d: extension registry codes are not part of %s", at, what)
		case 0x97, 0x98:
			return fmt.Errorf("opcode at byte %d: out-of-band buffers are not part of %s", at, what)
		default:
			return fmt.Errorf("opcode at byte %d: unknown opcode 0x%02x", at, op)
		}
		if err := need(n, "argument"); err != nil {
			return err
		}
		i += int(n)
		if sawStop {
			break
		}
	}
	if !sawStop {
		return fmt.Errorf("no STOP opcode: the pickle is truncated")
	}
	return nil
}
