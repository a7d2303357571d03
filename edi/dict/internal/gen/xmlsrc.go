package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// XML shapes of the pydifact D.24A and service directory files.

type xSegments struct {
	Segments []xSegment `xml:"segment"`
}

type xSegment struct {
	ID    string  `xml:"id,attr"`
	Name  string  `xml:"name,attr"`
	Desc  string  `xml:"desc,attr"`
	Items []xItem `xml:",any"`
}

// xItem is a data_element or a composite_data_element, in a segment or in
// the composite directory.
type xItem struct {
	XMLName   xml.Name
	ID        string  `xml:"id,attr"`
	Name      string  `xml:"name,attr"`
	Desc      string  `xml:"desc,attr"`
	Required  string  `xml:"required,attr"`
	Repeat    string  `xml:"repeat,attr"`
	Type      string  `xml:"type,attr"`
	MaxLength string  `xml:"maxlength,attr"`
	Length    string  `xml:"length,attr"`
	Children  []xItem `xml:"data_element"`
	Codes     []xCode `xml:"code"`
}

type xCode struct {
	ID    string `xml:"id,attr"`
	Title string `xml:"title,attr"`
}

type xComposites struct {
	Items []xItem `xml:"composite_data_element"`
}

type xElements struct {
	Items []xItem `xml:"data_element"`
}

// xNode is a segment or group of a message structure file.
type xNode struct {
	XMLName   xml.Name
	ID        string  `xml:"id,attr"`
	MaxRepeat string  `xml:"maxrepeat,attr"`
	Required  string  `xml:"required,attr"`
	Children  []xNode `xml:",any"`
}

type xMessage struct {
	Nodes []xNode `xml:",any"`
}

func readXML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if err := xml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", filepath.Base(path), err)
	}
	return nil
}

// reprOf builds a representation such as an..35 from the XML type and
// maximum length. The XML gives maximum lengths only, so fixed lengths
// (a4, n6) appear as a..4 unless a fixed length attribute is present.
func reprOf(it xItem) (string, error) {
	if it.Type != "a" && it.Type != "n" && it.Type != "an" {
		return "", fmt.Errorf("element %s: unknown type %q", it.ID, it.Type)
	}
	if it.Length != "" {
		return it.Type + it.Length, nil
	}
	if _, err := strconv.Atoi(it.MaxLength); err != nil {
		return "", fmt.Errorf("element %s: bad maxlength %q", it.ID, it.MaxLength)
	}
	return it.Type + ".." + it.MaxLength, nil
}

func atoiDefault(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number: %w", s, err)
	}
	return n, nil
}

// xmlMessage converts a message structure file. Groups are named SGn in
// the file; positions are not given and are numbered like the UN tables.
func xmlMessage(path string) ([]*node, error) {
	var xm xMessage
	if err := readXML(path, &xm); err != nil {
		return nil, err
	}
	var conv func([]xNode) ([]*node, error)
	conv = func(xs []xNode) ([]*node, error) {
		var out []*node
		for _, x := range xs {
			max, err := atoiDefault(x.MaxRepeat, 1)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", filepath.Base(path), x.ID, err)
			}
			n := &node{mandatory: x.Required == "true", max: max}
			switch x.XMLName.Local {
			case "defaults":
				continue
			case "segment":
				n.tag = x.ID
			case "group":
				var g int
				if _, err := fmt.Sscanf(x.ID, "SG%d", &g); err != nil {
					return nil, fmt.Errorf("%s: bad group id %q", filepath.Base(path), x.ID)
				}
				n.group = g
				if n.children, err = conv(x.Children); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("%s: unexpected element <%s>", filepath.Base(path), x.XMLName.Local)
			}
			out = append(out, n)
		}
		return out, nil
	}
	return conv(xm.Nodes)
}
