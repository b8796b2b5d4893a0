"""A small hosting stack template (model, endpoint config, endpoint, scalable target) for the diff tests."""

from __future__ import annotations

from typing import Any


def hosting(instance_type: str = "ml.g5.xlarge", image: str = "img:1", *, name: Any = "acme-chat") -> dict[str, Any]:
    return {
        "Resources": {
            "Model": {
                "Type": "AWS::SageMaker::Model",
                "Properties": {"ExecutionRoleArn": "arn:aws:iam::1:role/r", "PrimaryContainer": {"Image": image}},
            },
            "Config": {
                "Type": "AWS::SageMaker::EndpointConfig",
                "Properties": {
                    "ProductionVariants": [
                        {
                            "VariantName": "AllTraffic",
                            "InstanceType": instance_type,
                            "ModelName": {"Fn::GetAtt": ["Model", "ModelName"]},
                        }
                    ]
                },
            },
            "Endpoint": {
                "Type": "AWS::SageMaker::Endpoint",
                "Properties": {
                    "EndpointName": name,
                    "EndpointConfigName": {"Fn::GetAtt": ["Config", "EndpointConfigName"]},
                },
            },
            "Target": {
                "Type": "AWS::ApplicationAutoScaling::ScalableTarget",
                "Properties": {
                    "ResourceId": "endpoint/acme-chat/variant/AllTraffic",
                    "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
                    "ServiceNamespace": "sagemaker",
                    "MinCapacity": 1,
                    "MaxCapacity": 2,
                },
            },
        }
    }
