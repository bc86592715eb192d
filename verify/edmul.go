package verify

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
)

// [k](-A) + [S]B with a table of -A kept per key. edwards25519's
// VarTimeDoubleScalarBaseMult builds an 8-entry table of A on every call
// and walks k in a width-5 NAF; a key that signs thousands of records
// pays for its table once here, and a 64-entry affine table (width-8 NAF,
// as for B) needs about a third fewer additions. The formulas are
// edwards25519's (extended coordinates, https://eprint.iacr.org/2008/522),
// on its public field arithmetic; TestEdKeyAgreesWithStdlib and
// FuzzEdKeyAgreesWithStdlib hold the result to crypto/ed25519.

// affCached is a point (x, y) kept as y+x, y-x and 2dxy.
type affCached struct{ yPlusX, yMinusX, t2d field.Element }

type p1p1 struct{ x, y, z, t field.Element }

type p2 struct{ x, y, z field.Element }

type p3 struct{ x, y, z, t field.Element }

// nafTable holds P, 3P, 5P, ..., 127P.
type nafTable [64]affCached

var curveD2 = func() *field.Element {
	d, _ := new(field.Element).SetBytes([]byte{
		0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75,
		0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
		0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c,
		0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52})
	return new(field.Element).Add(d, d)
}()

func newNafTable(p *edwards25519.Point) *nafTable {
	var t nafTable
	twice := new(edwards25519.Point).Add(p, p)
	cur := new(edwards25519.Point).Set(p)
	for i := range t {
		X, Y, Z, _ := cur.ExtendedCoordinates()
		var zInv, x, y field.Element
		zInv.Invert(Z)
		x.Multiply(X, &zInv)
		y.Multiply(Y, &zInv)
		t[i].yPlusX.Add(&y, &x)
		t[i].yMinusX.Subtract(&y, &x)
		t[i].t2d.Multiply(&x, &y)
		t[i].t2d.Multiply(&t[i].t2d, curveD2)
		cur.Add(cur, twice)
	}
	return &t
}

var baseTable = sync.OnceValue(func() *nafTable { return newNafTable(edwards25519.NewGeneratorPoint()) })

// keyTables counts the per-key tables built: a registry of many keys
// that each sign little gets no table beyond the cap (8 KB each).
var keyTables atomic.Int64

const maxKeyTables = 1024

func (v *p1p1) double(p *p2) {
	var xx, yy, zz2, xPlusYSq field.Element
	xx.Square(&p.x)
	yy.Square(&p.y)
	zz2.Square(&p.z)
	zz2.Add(&zz2, &zz2)
	xPlusYSq.Add(&p.x, &p.y)
	xPlusYSq.Square(&xPlusYSq)
	v.y.Add(&yy, &xx)
	v.z.Subtract(&yy, &xx)
	v.x.Subtract(&xPlusYSq, &v.y)
	v.t.Subtract(&zz2, &v.z)
}

// addAffine sets v = p + q, or p - q when neg.
func (v *p1p1) addAffine(p *p3, q *affCached, neg bool) {
	var yPlusX, yMinusX, pp, mm, tt2d, z2 field.Element
	yPlusX.Add(&p.y, &p.x)
	yMinusX.Subtract(&p.y, &p.x)
	if neg {
		pp.Multiply(&yPlusX, &q.yMinusX)
		mm.Multiply(&yMinusX, &q.yPlusX)
	} else {
		pp.Multiply(&yPlusX, &q.yPlusX)
		mm.Multiply(&yMinusX, &q.yMinusX)
	}
	tt2d.Multiply(&p.t, &q.t2d)
	z2.Add(&p.z, &p.z)
	v.x.Subtract(&pp, &mm)
	v.y.Add(&pp, &mm)
	if neg {
		v.z.Subtract(&z2, &tt2d)
		v.t.Add(&z2, &tt2d)
	} else {
		v.z.Add(&z2, &tt2d)
		v.t.Subtract(&z2, &tt2d)
	}
}

func (v *p3) fromP1p1(p *p1p1) {
	v.x.Multiply(&p.x, &p.t)
	v.y.Multiply(&p.y, &p.z)
	v.z.Multiply(&p.z, &p.t)
	v.t.Multiply(&p.x, &p.y)
}

func (v *p2) fromP1p1(p *p1p1) {
	v.x.Multiply(&p.x, &p.t)
	v.y.Multiply(&p.y, &p.z)
	v.z.Multiply(&p.z, &p.t)
}

// naf8 is the width-8 non-adjacent form of a scalar given as its 32
// canonical little-endian bytes (edwards25519's nonAdjacentForm, after
// curve25519-dalek): odd digits in [-127, 127], at most one nonzero in
// any 8 consecutive places.
func naf8(b []byte) (naf [256]int8) {
	const w = 8
	var digits [5]uint64
	for i := 0; i < 4; i++ {
		digits[i] = binary.LittleEndian.Uint64(b[i*8:])
	}
	const width = uint64(1 << w)
	const windowMask = width - 1
	pos := uint(0)
	carry := uint64(0)
	for pos < 256 {
		indexU64, indexBit := pos/64, pos%64
		var bitBuf uint64
		if indexBit < 64-w {
			bitBuf = digits[indexU64] >> indexBit
		} else {
			bitBuf = (digits[indexU64] >> indexBit) | (digits[1+indexU64] << (64 - indexBit))
		}
		window := carry + (bitBuf & windowMask)
		if window&1 == 0 {
			pos++
			continue
		}
		if window < width/2 {
			carry = 0
			naf[pos] = int8(window)
		} else {
			carry = 1
			naf[pos] = int8(int(window) - int(width))
		}
		pos += w
	}
	return naf
}

// doubleScalarMult returns [a]A + [b]B in projective (X:Y:Z), A given by
// its table; a and b are canonical scalars' bytes.
func doubleScalarMult(a []byte, aTab *nafTable, b []byte, out *p2) {
	aNaf, bNaf := naf8(a), naf8(b)
	bTab := baseTable()
	i := 255
	for i >= 0 && aNaf[i] == 0 && bNaf[i] == 0 {
		i--
	}
	out.x.Zero()
	out.y.One()
	out.z.One()
	var t p1p1
	var v p3
	for ; i >= 0; i-- {
		t.double(out)
		if d := aNaf[i]; d != 0 {
			v.fromP1p1(&t)
			if d > 0 {
				t.addAffine(&v, &aTab[d/2], false)
			} else {
				t.addAffine(&v, &aTab[-d/2], true)
			}
		}
		if d := bNaf[i]; d != 0 {
			v.fromP1p1(&t)
			if d > 0 {
				t.addAffine(&v, &bTab[d/2], false)
			} else {
				t.addAffine(&v, &bTab[-d/2], true)
			}
		}
		out.fromP1p1(&t)
	}
}

// encodeP2 is the point's RFC 8032 encoding given 1/Z.
func encodeP2(p *p2, zInv *field.Element, out *[32]byte) {
	var x, y field.Element
	x.Multiply(&p.x, zInv)
	y.Multiply(&p.y, zInv)
	copy(out[:], y.Bytes())
	out[31] |= byte(x.IsNegative() << 7)
}
