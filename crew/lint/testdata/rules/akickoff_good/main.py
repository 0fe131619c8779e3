def run():
    Crew().kickoff(inputs={})
