package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCountLinesLeanShape checks the attribution on a hand-written file of
// the shape the lean methods take, whose lines are counted by hand;
// and on the same file with an op field named like its method.
func TestCountLinesLeanShape(t *testing.T) {
	src, err := os.ReadFile("testdata/lean.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.NewReplacer("opListPets  *runtime.Operation", "listPets    *runtime.Operation",
		"c.opListPets", "c.listPets").Replace(string(src))
	if renamed == string(src) {
		t.Fatal("the fixture has no opListPets field to rename")
	}
	for name, src := range map[string][]byte{"as written": src, "field listPets": []byte(renamed)} {
		t.Run(name, func(t *testing.T) { checkLeanShape(t, src) })
	}
}

func checkLeanShape(t *testing.T, src []byte) {
	fl, err := countLines("lean.gen.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{
		"ListPets": {
			"stmt NewClient statement 5": 5, // with its comment line
			"type ListPetsParams":        4,
			"type ListPetsResponse":      5,
			"var listPetsDecode":         3,
			"method ListPets":            5,
			"recvmethod decode":          2, // a method of its Response type
		},
		"CreatePet": {
			"stmt NewClient statement 6": 1,
			"var specCreatePet":          1, // referenced only by its registration
			"type CreatePetResponse":     4,
			"var createPetTable":         1,
			"method CreatePet":           4,
			"method CreatePetWithBody":   4, // a body variant
			"method sendCreatePet":       4, // the shared send method
		},
	}
	if fl.Total != 97 {
		t.Errorf("total %d lines, want 97", fl.Total)
	}
	if len(fl.Ops) != len(want) {
		t.Fatalf("operations %v, want %v", fl.Ops, slices.Sorted(maps.Keys(want)))
	}
	for _, o := range fl.Ops {
		sum := 0
		for _, n := range want[o.Name] {
			sum += n
		}
		if !maps.Equal(o.Parts, want[o.Name]) || o.Lines != sum {
			t.Errorf("%s: %d lines %v, want %d %v", o.Name, o.Lines, o.Parts, sum, want[o.Name])
		}
	}
	if m := fl.mean(); m != (24.0+19.0)/2 {
		t.Errorf("mean %.2f, want 21.5", m)
	}
}

// TestCountLinesWithoutOpFields: a client without op<Name> fields still has
// its operations found by their context-first methods.
func TestCountLinesWithoutOpFields(t *testing.T) {
	src, err := os.ReadFile("testdata/lean.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("opListPets  *runtime.Operation", "", "opCreatePet *runtime.Operation", "",
		"c.opListPets", "c.ops[0]", "c.opCreatePet", "c.ops[1]").Replace(string(src))
	fl, err := countLines("lean.gen.go", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range fl.Ops {
		names = append(names, o.Name)
		for _, part := range []string{"method " + o.Name, "type " + o.Name + "Response"} {
			if o.Parts[part] == 0 {
				t.Errorf("%s: no %q in %v", o.Name, part, o.Parts)
			}
		}
	}
	if !slices.Equal(names, []string{"CreatePet", "ListPets"}) {
		t.Errorf("operations %v, want CreatePet, ListPets", names)
	}
	if p := fl.Ops[0].Parts; p["method CreatePetWithBody"] != 4 || p["method sendCreatePet"] != 4 {
		t.Errorf("CreatePet's variant and send method not counted: %v", p)
	}
}

// TestCountLinesGoldenPetstore: the committed golden, whatever its shape,
// has four operations, each owning a method, a Response type and a
// registration statement.
func TestCountLinesGoldenPetstore(t *testing.T) {
	path := filepath.Join("..", "..", "golden", "petstore", "client.gen.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := countLines(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Ops) != 4 {
		t.Fatalf("%d operations, want 4: %v", len(fl.Ops), fl.Ops)
	}
	for _, o := range fl.Ops {
		stmt := false
		for p := range o.Parts {
			stmt = stmt || strings.HasPrefix(p, "stmt NewClient")
		}
		if o.Parts["method "+o.Name] == 0 || o.Parts["type "+o.Name+"Response"] == 0 || !stmt {
			t.Errorf("%s: %v lacks its method, Response type or registration", o.Name, o.Parts)
		}
	}
}
