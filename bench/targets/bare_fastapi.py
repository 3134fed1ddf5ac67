"""The origin project's stack at its floor: one FastAPI POST route returning greet's JSON.

Run by bench/run.ts as `python3 -m uvicorn --app-dir bench/targets bare_fastapi:app` (one process,
uvicorn's defaults for the event loop and HTTP parser, no access log).
"""
from fastapi import FastAPI
from pydantic import BaseModel


class Greet(BaseModel):
    name: str
    shout: bool = False


app = FastAPI()


@app.post("/api/v1/services/greet")
async def greet(body: Greet) -> dict:
    message = f"Hello, {body.name}!"
    return {"message": message.upper() if body.shout else message, "times": 1}
