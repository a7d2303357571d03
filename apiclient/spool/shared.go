package spool

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// SetSharedUploads makes key plans (KeyHistory, ReserveUpload) count the
// upload history lines a team shares (a team store's, for the
// connection) besides this machine's: the next key number after a
// colleague's upload. nil: this machine's history only.
func (s *Store) SetSharedUploads(fn func(connectionID string) ([]UploadRecord, error)) { s.shared = fn }

// KeyHistory is the history key decisions read: this machine's lines and
// the shared ones, each line once, in time order (a line both pushed and
// kept here counts once).
func (s *Store) KeyHistory(connectionID string) ([]UploadRecord, error) {
	local, err := s.Uploads(connectionID)
	if err != nil || s.shared == nil {
		return local, err
	}
	team, err := s.shared(connectionID)
	if err != nil {
		return nil, fmt.Errorf("reading the team's upload history: %w", err)
	}
	return MergeHistories(local, team), nil
}

// KeyHistoryFor is KeyHistory for one sender and business id: the lines
// Decide reads for them (it skips every other line), from the key state
// kept next to the history (keystate.go), so its cost grows with the
// uploads of that order, not with the connection's history.
func (s *Store) KeyHistoryFor(connectionID, senderID, businessID string) ([]UploadRecord, error) {
	unlock, err := s.lockConn(connectionID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.keyHistoryForLocked(connectionID, senderID, businessID)
}

func (s *Store) keyHistoryForLocked(connectionID, senderID, businessID string) ([]UploadRecord, error) {
	local, err := s.keyRecords(connectionID, senderID, businessID)
	if err != nil || s.shared == nil {
		return local, err
	}
	team, err := s.shared(connectionID)
	if err != nil {
		return nil, fmt.Errorf("reading the team's upload history: %w", err)
	}
	var mine []UploadRecord
	for _, r := range team {
		if r.SenderID == senderID && r.BusinessID == businessID {
			mine = append(mine, r)
		}
	}
	return MergeHistories(local, mine), nil
}

// MergeHistories joins histories line by line: a line (key, bytes, time,
// outcome) in both counts once; the result is in time order, a's lines
// first among equal times.
func MergeHistories(a, b []UploadRecord) []UploadRecord {
	id := func(r UploadRecord) string {
		return r.Key + "\x00" + strings.ToLower(r.SHA256) + "\x00" + r.Time.UTC().Format(time.RFC3339Nano) + "\x00" + string(r.Outcome)
	}
	seen := make(map[string]bool, len(a))
	out := make([]UploadRecord, 0, len(a)+len(b))
	for _, r := range a {
		seen[id(r)] = true
		out = append(out, r)
	}
	for _, r := range b {
		if !seen[id(r)] {
			seen[id(r)] = true
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}
