import asyncio

async def run():
    await Crew().akickoff(inputs={})
