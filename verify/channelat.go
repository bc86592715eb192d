package verify

import (
	"math"

	"github.com/memscope/memscope/evidence/record"
)

// Registration is one registry event the registry applied (root signature
// and key checked), with its log position: the history ChannelAt reads.
type Registration struct {
	Principal string
	Key       record.KeyID
	Op        string // record.OpRegister or record.OpRevoke
	Channel   string
	// Pos is the event's leaf index, math.MaxUint64 when the log was not
	// read or does not hold it.
	Pos uint64
}

// NoPosition is the position of a record the log does not place.
const NoPosition = math.MaxUint64

// ChannelAt is the channel a principal's writes had at log position pos:
// the registry events logged before pos are replayed in log order and the
// answer is authenticated only when every key of the principal live at pos
// was registered on the authenticated channel (a record signed at pos may
// have used any of them), unauthenticated when some live key was not, and
// "" when no key was live (not registered then). A later re-registration
// on another channel changes nothing before its own position: a write
// keeps the channel it was logged under (docs/FORMAT.md). A record without
// a position (NoPosition) is read after every event.
func (r *Report) ChannelAt(principal string, pos uint64) string {
	live := map[record.KeyID]string{}
	for _, reg := range r.Registrations {
		if reg.Principal != principal {
			continue
		}
		// An event without a position cannot be placed before anything
		// except a record without one.
		if reg.Pos >= pos && !(pos == NoPosition && reg.Pos == NoPosition) {
			continue
		}
		switch reg.Op {
		case record.OpRegister:
			live[reg.Key] = reg.Channel
		case record.OpRevoke:
			delete(live, reg.Key)
		}
	}
	if len(live) == 0 {
		return ""
	}
	for _, ch := range live {
		if ch != record.ChannelAuthenticated {
			return record.ChannelUnauthenticated
		}
	}
	return record.ChannelAuthenticated
}
