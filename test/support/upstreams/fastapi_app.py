"""A REST service that is not ours, for the OpenAPI source's tests: FastAPI serves its own
OpenAPI document at /openapi.json. Run with Debian's /usr/bin/python3 (python3-fastapi,
python3-uvicorn): `python3 fastapi_app.py` binds a free loopback port, prints `listening <port>`
and serves until it is stopped."""

import asyncio
import socket
import sys
from typing import List, Optional

import uvicorn
from fastapi import Body, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

app = FastAPI(title="Inventory", version="1.0.0")

# What the service has seen of its slow calls (by their mark): begun, and whose client went away
# before the answer.
seen = {"started": [], "disconnected": []}


class Item(BaseModel):
    name: str
    price: float
    tags: List[str] = []


class Node(BaseModel):
    value: int
    children: List["Node"] = []


Node.update_forward_refs()


@app.get("/items/{item_id}", operation_id="get_item", summary="Read an item")
def get_item(item_id: str, q: Optional[str] = None, limit: int = 10, tag: List[str] = Query([])):
    return {"item_id": item_id, "q": q, "limit": limit, "tag": tag}


@app.post("/items", operation_id="create_item", status_code=201, description="Adds an item.")
def create_item(item: Item):
    return {"id": 7, "item": item.dict()}


@app.get("/whoami", operation_id="whoami")
def whoami(request: Request, x_request_id: Optional[str] = Header(None)):
    """The headers the call arrived with."""
    return {
        "x_request_id": x_request_id,
        "authorization": request.headers.get("authorization"),
        "x_source_key": request.headers.get("x-source-key"),
        "traceparent": request.headers.get("traceparent"),
        "host": request.headers.get("host"),
    }


# Bearer tokens this service no longer takes (a test revokes the one it was called with).
revoked = set()


@app.get("/guarded", operation_id="guarded")
def guarded(request: Request):
    """The bearer token the call came with; 401 for a revoked one."""
    authorization = request.headers.get("authorization") or ""
    if not authorization.startswith("Bearer ") or authorization[7:] in revoked:
        raise HTTPException(status_code=401, detail="The token is not accepted.")
    return {"authorization": authorization}


@app.post("/__revoke", include_in_schema=False)
def revoke(token: str = Body(..., embed=True)):
    revoked.add(token)
    return {"revoked": len(revoked)}


@app.get("/missing/{item_id}", operation_id="missing_item")
def missing_item(item_id: int):
    raise HTTPException(status_code=404, detail=f"Item {item_id} not found")


@app.get("/broken", operation_id="broken")
def broken():
    return PlainTextResponse("x" * 500, status_code=500)


@app.get("/large", operation_id="large")
def large(size: int):
    return {"data": "y" * size}


@app.get("/slow", operation_id="slow")
async def slow(request: Request, seconds: float, mark: str):
    seen["started"].append(mark)
    for _ in range(int(seconds * 20)):
        if await request.is_disconnected():
            seen["disconnected"].append(mark)
            return {"finished": False}
        await asyncio.sleep(0.05)
    return {"finished": True}


@app.get("/seen", operation_id="seen")
def seen_requests():
    return seen


@app.get("/redirect", operation_id="redirect")
def redirect():
    return PlainTextResponse("", status_code=302, headers={"location": "/seen"})


# An operation whose path and query parameters share a name: the source leaves it out.
@app.get("/clash/{id}", operation_id="clash")
def clash(id: str, other: Optional[str] = Query(None, alias="id")):
    return {"id": id}


# An operation with a query parameter named like the JSON body: left out too.
@app.post("/clash-body", operation_id="clash_body")
def clash_body(item: Item, body: Optional[str] = None):
    return {}


# A recursive schema (Node holds Nodes): left out, its cycle named.
@app.post("/tree", operation_id="plant_tree")
def plant_tree(node: Node):
    return {"value": node.value}


# A HEAD operation: read-only, as GET is.
@app.head("/items/{item_id}", operation_id="item_exists")
def item_exists(item_id: str):
    return None


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"listening {sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    server.run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
