package install

import (
	"bytes"
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// yamlDoc is a YAML document (a Continue block file) edited as a node tree,
// so comments and the order of keys survive.
type yamlDoc struct {
	root yaml.Node
}

func parseYAML(data []byte) (*yamlDoc, error) {
	d := &yamlDoc{}
	if len(bytes.TrimSpace(data)) == 0 {
		d.root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
		return d, nil
	}
	if err := yaml.Unmarshal(data, &d.root); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	if d.root.Kind != yaml.DocumentNode || len(d.root.Content) != 1 || d.root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the top level is not a YAML mapping")
	}
	// Decoding into values catches what a node tree lets through, such as
	// a key defined twice.
	var check any
	if err := d.root.Decode(&check); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	return d, nil
}

func (d *yamlDoc) top() *yaml.Node { return d.root.Content[0] }

func (d *yamlDoc) bytes() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&d.root); err != nil {
		return nil, err
	}
	enc.Close()
	return b.Bytes(), nil
}

// setDefault sets top-level key to val when the key is absent.
func (d *yamlDoc) setDefault(key string, val any) error {
	if mapValue(d.top(), key) != nil {
		return nil
	}
	n := &yaml.Node{}
	if err := n.Encode(val); err != nil {
		return err
	}
	d.top().Content = append(d.top().Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, n)
	return nil
}

// upsertNamed makes the top-level list key hold item, an entry with a
// "name" field: the entry of that name is replaced when it differs, else
// item is appended. Other entries stay.
func (d *yamlDoc) upsertNamed(key string, item ordered) error {
	list := mapValue(d.top(), key)
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode}
		d.top().Content = append(d.top().Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, list)
	}
	if list.Kind != yaml.SequenceNode {
		return fmt.Errorf("%q is not a list; llmwiki will not replace it", key)
	}
	name := ""
	for _, f := range item {
		if f.Key == "name" {
			name, _ = f.Value.(string)
		}
	}
	n, err := orderedNode(item)
	if err != nil {
		return err
	}
	for i, el := range list.Content {
		nm := mapValue(el, "name")
		if nm == nil || nm.Value != name {
			continue
		}
		var have, want any
		el.Decode(&have)
		n.Decode(&want)
		if reflect.DeepEqual(have, want) {
			return nil
		}
		list.Content[i] = n
		return nil
	}
	list.Content = append(list.Content, n)
	return nil
}

// orderedNode encodes an ordered object as a YAML mapping in that order.
func orderedNode(o ordered) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range o {
		v := &yaml.Node{}
		if err := v.Encode(f.Value); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.Key}, v)
	}
	return n, nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
