from inventory.crew import InventoryCrew


def run():
    InventoryCrew().crew().kickoff(inputs={"sku": "SKU-1"})
