from inventory.crew import InventoryCrew


def run():
    for sku in ["SKU-1", "SKU-2"]:
        InventoryCrew().crew().kickoff(inputs={"sku": sku})
