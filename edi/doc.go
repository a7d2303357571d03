// Package edi reads UN/EDIFACT exactly and fast: it indexes the input in
// one pass without copying it, gives lazy access to elements and
// components, builds the interchange → group → message → segment
// structure with the header facts, and validates the envelopes.
//
// # Model
//
// Parse returns a Document that references the input. Each segment costs a
// 16-byte record (offset, length, tag, flags, dialect, path id); elements
// are found and unescaped only when read, as sub-slices of the input unless
// a release character forces a copy. Every input byte belongs either to a
// segment (Segment.Raw plus its terminator) or to a gap (Document.Leading,
// Document.GapAfter), so the input can always be reproduced exactly.
//
// Numbering, used consistently in the API, in issues and in b2bx output:
// segment indexes are 0-based over the whole Document ("segment 7" is
// Document.Segment(7)); a segment's Number within its message is 1-based
// with UNH = 1, as UNT counts; element positions are 1-based as in the
// directories (0 is the tag), components 1-based, repetitions 0-based.
// Offsets are 0-based byte offsets into the input.
//
// # Service characters
//
// A UNA segment sets the separators of the interchange it starts. Position
// 5 of UNA is the repetition separator under syntax version 4 (a space
// there means "none") and is ignored under versions 1-3, where it is
// reserved. Without UNA the separators are the ISO 9735 defaults ":+.? '"
// (plus '*' as repetition separator under version 4). Level B (UNOB)
// defaults to the information separators IS1 0x1F (component), IS3 0x1D
// (element) and IS4 0x1C (segment) with no release character; b2bx uses
// them only when the byte after "UNB" is 0x1D, because real UNOB files
// often use the printable defaults. Under version 4 the level-B repetition
// separator is taken to be IS2 0x1E (our decision; such files are rare).
// A UNA whose characters collide (e.g. the release character equal to a
// separator) is reported and repaired so scanning stays well defined.
//
// The release character escapes every separator, the repetition separator
// and itself: a terminator preceded by an odd run of release characters is
// data. A release character before any other character is reported
// (RELEASE_INVALID, warning) and dropped. A release character at the very
// end of the data is an error (RELEASE_DANGLING).
//
// # Tolerance rules
//
//   - UTF-8 byte order mark at the start: skipped, warning UTF8_BOM.
//   - CR and LF between segments: layout, silently skipped (unless the UNA
//     makes CR or LF a service character).
//   - CR and LF inside a segment (hard-wrapped files): never data. They are
//     removed before elements are split, Raw keeps them, and one warning
//     LINE_BREAK_IN_SEGMENT per interchange counts the segments affected.
//   - Junk before UNA/UNB (mail headers, banners, separators between
//     concatenated interchanges): when the data outside an interchange does
//     not start with a segment tag, b2bx looks for the next
//     UNA, UNB (or UNH followed by the element separator); the bytes before
//     it are a gap reported as JUNK_BEFORE_INTERCHANGE (error) with their
//     offset. Without such a start the bytes are read as segments and fail
//     the tag check.
//   - Several interchanges per file: each UNA/UNB starts a new one with its
//     own separators and character set.
//   - Bare messages (UNH without UNB, with or without UNA): accepted as an
//     interchange with HasUNB false, warning MESSAGE_WITHOUT_INTERCHANGE.
//   - Missing UNZ (or UNT, UNE): the structure is closed at the next
//     interchange or the end of data, error UNZ_MISSING (UNT_MISSING,
//     UNE_MISSING) with the expected trailer.
//   - Segments after UNZ that do not start a new interchange: error
//     DATA_AFTER_UNZ, then read as a bare interchange.
//   - Spaces, tabs, NUL or ^Z running to the end of the data: a gap,
//     warning TRAILING_DATA.
//   - A last segment without terminator: error SEGMENT_UNTERMINATED; line
//     breaks after it are layout.
//
// # Envelope validation
//
// Issues carry a severity, a stable Code, a message that says what is wrong
// and what was expected, the segment index, the byte offset and, where one
// applies, the syntax error code 0085 (only codes with the same meaning in
// syntax versions 3 and 4 are used; 45 "trailing separator" only under
// version 4). Checked: UNT count (UNH and UNT included) and reference, UNE
// count and reference, UNZ count (groups when UNG is used, else messages;
// both when they are mixed) and reference, missing and unexpected trailers, UNG mixed with ungrouped
// messages, empty interchanges and groups (warnings), segments outside
// messages, data after UNZ, tag syntax (three upper-case letters or
// digits), empty segments, trailing separators (warning), mandatory UNB/
// UNG/UNH elements, syntax identifier and version, the preparation date,
// and characters against the declared level:
//
//   - UNOA: printable characters outside level A (lower case, @, #, _ ...)
//     are a warning, because they are widely accepted; bytes above 0x7F in
//     UNOA/UNOB are an error (their meaning is undefined).
//   - C0 control characters inside segments (other than declared separators
//     and line-break layout) are an error at every level.
//   - UNOC-UNOF: bytes 0x80-0x9F are a warning (C1 controls, usually
//     Windows-1252 text); if all bytes above 0x7F form valid UTF-8 a warning
//     says the sender probably wrote UTF-8.
//   - UNOW/UNOY: invalid UTF-8 is an error.
//
// At most 1000 issues of each code are listed, the first ones in input
// order; one ISSUES_OMITTED issue per code and severity counts the rest
// (Issue.Omitted), at the first one left out, and Document.IssueCounts
// counts every problem, listed or not. A file with the same fault in
// every segment then costs a thousand issues, not millions.
//
// # Message structure
//
// Parse also checks every message against its directory structure
// (edi/dict): every message of D.96A (the 125 types of the UNTDID D.96A
// message directory: ORDERS, DESADV, INVOIC, IFTMIN...), ORDERS, ORDRSP
// and APERAK of D.24A, D.25A with the D.24A structure (Message.DirectoryNote
// says "D.25A checked with the D.24A structure" and must be shown), and
// CONTRL 2:2 / D:3 (syntax 3) and 4:1 (syntax 4). Each segment of such a
// message gets its segment group path
// (Segment.Path "SG2/NAD", Segment.FullPath "SG25/SG28/PRI",
// Segment.Entry for the whole table entry); the path id stored in the
// index is the entry's index in dict.Message.Entries plus one, 0 meaning
// none (no structure, or the segment did not fit). Problems are errors
// with the 0085 code a CONTRL would carry: SEGMENT_UNEXPECTED (15),
// SEGMENT_MISSING and GROUP_MISSING (13; at the segment that came instead,
// or at the last segment of a message cut off), SEGMENT_TOO_MANY_REPETITIONS
// (35) and GROUP_TOO_MANY_REPETITIONS (36, once per group). A missing UNT
// is only UNT_MISSING. At most 100 structure issues are listed per
// message; STRUCTURE_PROBLEMS_OMITTED counts the rest (a message of the
// wrong type would otherwise bury every other issue), and
// Message.StructureProblems counts them all. After a segment that does not
// fit, the matcher resynchronises (dict.Matcher.NextKeyAhead): when the
// only place a segment fits would skip mandatory entries and the segments
// that follow fit better from where the matcher stood, that one segment is
// SEGMENT_UNEXPECTED ("the next place ... allows it is position 2100") and
// the rest of the message is matched as before, so one mistake gives one
// finding.
//
// # Elements and codes
//
// Every data element and component is checked against its directory's
// representation (a: no digits; n: digits, one decimal mark and a leading
// minus sign, which do not count toward the length; an; fixed "an3" or
// maximum "an..35" length, in characters) and, where the directory's list
// is closed (dict.CodeListClosed), against the code list. Service segments
// (UNB, UNG, UNH, UNT, UCI, UCS...) use the service directory of the
// syntax version and give errors: SERVICE_ELEMENT_FORMAT and
// SERVICE_CODE_NOT_IN_LIST. Message segments of a message with a
// structure give warnings: ELEMENT_FORMAT and CODE_NOT_IN_LIST. The 0085
// code says which rule: 39 too long, 40 too short, 37 wrong type of
// characters, 12 not in the code list. The message names the segment,
// the position ("020:3"), the reference and name ("S009.0054 Message
// release number"), the value and the rule ("its format an..3 allows at
// most 3"). The codes of a composite that gives 1131 or a 3055 other than
// 6 (UN/ECE) come from the list it names and are not checked. Elements
// Parse checks its own way (0002, 0036, 0060, 0074) get no second issue.
//
// Duplicate references are errors with 0085 code 26 (duplicate detected)
// at the repeat, naming the first occurrence: MESSAGE_REF_DUPLICATE (two
// UNH 0062 in one interchange), GROUP_REF_DUPLICATE (two UNG 0048 in one
// interchange), INTERCHANGE_REF_DUPLICATE (two UNB with the same sender,
// recipient and 0020 in one input).
//
// CONTRL: 2:2 and D:3 belong to syntax 3 (and below), 4:1 to syntax 4. A
// CONTRL whose version does not fit the UNB syntax version is the error
// CONTRL_VERSION_MISMATCH and is checked with its declared version's
// structure; any other version is the warning CONTRL_VERSION_UNKNOWN,
// checked with the structure of the syntax version. A CONTRL without UNB
// takes the syntax its version names.
//
// Other messages get envelope checks only and no issue for that: their
// DirectoryNote says "no directory structure for INVOIC D:01B ...". Their
// segments are still named (Segment.Name, Describe) from their own
// release when b2bx has it, else from D.96A for 199x releases and the UN
// standard directory S (S:93A) and D.24A for later ones, with D.96A for
// segments D.24A dropped (PAT, GIS); a message type no directory has (IATA
// PADIS, EDIG@S, private types) gets the service segments and D.96A names
// for UN tags. The note says which directory named them, and
// SegmentInfo.Directory which one named each segment.
//
// # Names, meanings, summaries
//
// Document.Describe(i) explains one segment for a viewer: name, path and
// every value with its position ("020"), reference ("C082.3039"), name and,
// for coded elements, the code's name ("BY" -> "Buyer"). Service segments
// are described from the service directory of the interchange's syntax
// version, the others from the message's directory. It reads only that
// segment, each byte once, and lists at most 1000 values (SegmentInfo.More
// counts the rest).
//
// Message.Summary reads what a person wants first: ORDERS (document number,
// function, dates, header parties with GLN, line count, CNT and whether
// the line count matches), ORDRSP (the same, the order number from RFF+ON,
// lines per LIN action code and the changed lines with their quantities),
// APERAK (the references and every ERC with its texts) and CONTRL (the
// answered interchange, the UCI action in one word and every UCM/UCS/UCD
// error with 0085 names and positions). A changed ORDRSP line is one whose
// LIN action code (1229) is present and not 4 "No action", 5 "Accepted
// without amendment" or 11 "Not amended". UN/EDIFACT has no code list for
// the APERAK error code 9321, so ERC codes have a name only when a
// directory lists them; their FTX explains them. Summaries are read on
// demand and not kept, and each list in one is bounded (1000 items, 10,000
// per summary): a Document costs the same whatever its messages repeat.
//
// From 8192 segments Parse runs the character check (which reads only the
// input bytes) on a second goroutine next to the message layer (which
// writes the path ids into the segment records); the segment-shape checks
// read those records and run afterwards, because reading records another
// core is writing costs more than it saves. They look only at the
// segments the scanner listed as candidates (empty, bad tag, wrapped, a
// release character before a non-service byte, a possible trailing
// separator, UNB), next to none in a clean file. On the 16 MiB benchmark
// interchange the message layer costs ~7.5 ns per segment, and the whole
// analysis after indexing ~5.5 ms instead of ~9 ms in sequence.
//
// From 1 MiB the index itself is built in two halves at once: a second
// scanner starts after a segment terminator near the middle, guessing the
// state (dialect, inside an interchange, no pending UNA) the first will
// have there. The scanner carries nothing else from segment to segment, so
// when the first half ends exactly at that terminator with that state the
// second half's records are the one-pass records and are appended;
// otherwise (an escaped terminator, another interchange's dialect, after
// UNZ) they are dropped and the first scanner goes on alone. Tests and a
// fuzz target compare both ways on every split position.
//
// # Files
//
// OpenFile maps large regular files read-only instead of copying them.
// When another program shortens a mapped file, reading the lost part
// faults; Parse (and Guard, for the caller's own reading) turns that into
// ErrFileChanged instead of a crash. File.Close unmaps: a Document over a
// File's bytes must not be used after it.
//
// # Character sets
//
// Text decodes per the UNB syntax identifier: UNOA/UNOB/IATA/IATB as ASCII,
// UNOC ISO 8859-1, UNOD 8859-2, UNOE 8859-5, UNOF 8859-7, UNOW/UNOY UTF-8.
// Without UNB, or for unknown identifiers, a value that is valid UTF-8 is
// taken as such, anything else as ISO 8859-1. Decoded text is not
// sanitised; the Display methods decode and sanitise with termsafe.
package edi
