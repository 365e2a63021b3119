#!/usr/bin/env python3
"""A large OpenAPI 3.0 document in the shape of GitHub's REST description,
written for the benchmarks (no public document is read or copied): TAGS tags
of OPS operations each (list, get, create, update, delete, and actions),
each tag with its own schemas of many properties that also use a few shared
ones (a user, a repository), nullable fields, enums, nested objects,
`deepObject` and array query parameters, and long descriptions and examples
as real documents carry them (PAD bytes of text per operation).

Deterministic: the same arguments write the same bytes.

Usage: large_spec.py TAGS OPS PAD > spec.json
"""

import json
import sys


def props(prefix, n, refs=()):
    out = {}
    for i in range(n):
        kind = i % 7
        name = f"{prefix}_field_{i}"
        if kind == 0:
            out[name] = {"type": "string", "description": f"The {name} of the item."}
        elif kind == 1:
            out[name] = {"type": "integer", "nullable": True}
        elif kind == 2:
            out[name] = {"type": "string", "enum": ["open", "closed", "all", f"{prefix}-{i}"]}
        elif kind == 3:
            out[name] = {"type": "array", "items": {"type": "string"}}
        elif kind == 4:
            out[name] = {"type": "boolean"}
        elif kind == 5:
            out[name] = {
                "type": "object",
                "properties": {
                    "href": {"type": "string", "format": "uri"},
                    "count": {"type": "integer"},
                },
            }
        else:
            out[name] = {"type": "string", "format": "date-time", "nullable": True}
    for ref in refs:
        out[ref.lower()] = {"$ref": f"#/components/schemas/{ref}"}
    return out


def main():
    tags, ops, pad = (int(a) for a in sys.argv[1:4])
    text = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * (pad // 57 + 1))[:pad]
    schemas = {
        "SimpleUser": {"type": "object", "required": ["login", "id"], "properties": props("user", 20)},
        "Repository": {
            "type": "object",
            "required": ["id", "name"],
            "properties": {**props("repo", 40, ["SimpleUser"]), "id": {"type": "integer"}, "name": {"type": "string"}},
        },
        "BasicError": {"type": "object", "properties": {"message": {"type": "string"}, "documentation_url": {"type": "string"}}},
    }
    paths = {}
    for t in range(tags):
        tag = f"area-{t}"
        item = f"Area{t}Item"
        schemas[item] = {
            "type": "object",
            "required": ["id"],
            "properties": {**props(f"a{t}", 24, ["SimpleUser", "Repository"]), "id": {"type": "integer"}},
        }
        schemas[f"Area{t}Summary"] = {"type": "object", "properties": props(f"s{t}", 8, ["SimpleUser"])}
        for o in range(ops):
            op_id = f"area{t}/op-{o}"
            kind = o % 5
            base = f"/areas/{t}/things{o // 5}"
            common = {
                "tags": [tag],
                "operationId": op_id,
                "summary": f"Operation {o} of {tag}",
                "description": text,
                "responses": {
                    "404": {"description": "Not found", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BasicError"}}}},
                },
            }
            if kind == 0:
                common["parameters"] = [
                    {"name": "per_page", "in": "query", "schema": {"type": "integer", "default": 30}},
                    {"name": "page", "in": "query", "schema": {"type": "integer"}},
                    {"name": "state", "in": "query", "schema": {"type": "string", "enum": ["open", "closed", "all"]}},
                    {"name": "labels", "in": "query", "style": "form", "explode": False, "schema": {"type": "array", "items": {"type": "string"}}},
                    {"name": "created", "in": "query", "style": "deepObject", "explode": True, "schema": {"anyOf": [
                        {"type": "object", "title": f"area{t}_range{o}", "properties": {"gt": {"type": "integer"}, "lt": {"type": "integer"}}},
                        {"type": "integer"}]}},
                ]
                common["responses"]["200"] = {"description": "A list", "content": {"application/json": {
                    "schema": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}}, "example": [{"id": 1}]}}}
                paths.setdefault(base, {})["get"] = common
            elif kind == 1:
                common["parameters"] = [{"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}]
                common["responses"]["200"] = {"description": "One", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{item}"}}}}
                paths.setdefault(base + "/{thing_id}", {})["get"] = common
            elif kind == 2:
                common["requestBody"] = {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["title"], "properties": {**props(f"c{t}_{o}", 10), "title": {"type": "string"}}}}}}
                common["responses"]["201"] = {"description": "Created", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{item}"}}}}
                paths.setdefault(base, {})["post"] = common
            elif kind == 3:
                common["parameters"] = [{"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}]
                common["requestBody"] = {"content": {"application/json": {"schema": {
                    "type": "object", "properties": {**props(f"u{t}_{o}", 8), "milestone": {"type": "integer", "nullable": True}}}}}}
                common["responses"]["200"] = {"description": "Updated", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/Area{t}Summary"}}}}
                paths.setdefault(base + "/{thing_id}", {})["patch"] = common
            else:
                common["parameters"] = [{"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}]
                common["responses"]["204"] = {"description": "Deleted"}
                paths.setdefault(base + "/{thing_id}", {})["delete"] = common
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Large synthetic API", "version": "1", "description": "Written by benches/large_spec.py."},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


main()
