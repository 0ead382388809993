"""Mistakes the stubs must catch (test_typing.py expects exactly these errors)."""

import flitsim

flitsim.simulate(seed="3")  # E: seed is an int
flitsim.Simulation(None).run("100")  # E: cycles is an int
x: str = flitsim.simulate().summary  # E: summary is a dict
y: int = flitsim.Config().key  # E: key is a str
